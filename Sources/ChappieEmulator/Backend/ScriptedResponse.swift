import Foundation

/// What one scripted reply turns into, independent of the transport: either a stream of
/// Responses events with an ending, or an HTTP-style error. The SSE endpoint frames the events as
/// `event:`/`data:` chunks; the WebSocket session sends each payload as a text frame (PROTOCOL §6.2).
enum ScriptedResponse: Sendable {
    /// A streamed response.
    case stream(ResponseEventStream, ending: HTTPResponse.StreamEnding, interval: Duration?)
    /// An error answer: status, body text and extra headers.
    case error(status: Int, body: String, headers: [(name: String, value: String)])
    /// A recorded SSE body sent as these chunks, waiting `interval` before each, then `ending`.
    case raw(chunks: [Data], ending: HTTPResponse.StreamEnding, interval: Duration?)
    /// No answer: the connection closes at once.
    case drop

    /// The reply for the next call made with a token of `accountID`: the usage-limit 429 when
    /// the usage meter reports a window 100 % used (as the real backend refuses work then),
    /// else the oldest queued reply for that account or for any, else a compaction item for a
    /// remote compaction v2 request (input ending in `compaction_trigger`), else the
    /// configuration's standing reply, else the scripted model's answer to `request`.
    static func nextReply(
        for request: ResponsesRequest, accountID: String?, services: EmulatorServices
    ) async -> ChappieEmulator.ScriptedReply {
        let usage = await services.usage.snapshot()
        if usage.primaryUsedPercent >= 100 || usage.secondaryUsedPercent >= 100 {
            let resetAt = usage.primaryUsedPercent >= 100 ? usage.primaryResetAt : usage.secondaryResetAt
            return .usageLimitReached(resetsInSeconds: max(0, resetAt - Int(Date().timeIntervalSince1970)))
        }
        if let queued = await services.replies.next(accountID: accountID) { return queued }
        if request.asksForCompaction {
            let summary = "compacted-v2:\(request.input.count - 1):" + RandomIdentifier.hex(16)
            return .compaction(encryptedContent: services.sealer.seal(summary))
        }
        return services.configuration.standingReply ?? ScriptedModel.reply(to: request)
    }

    /// Turns `reply` into events for `request`; counts served responses in the usage meter.
    static func compose(
        _ reply: ChappieEmulator.ScriptedReply,
        for request: ResponsesRequest,
        services: EmulatorServices
    ) async -> ScriptedResponse {
        var stream = ResponseEventStream(request: request, deltaCharacters: services.configuration.deltaCharacters, sealer: services.sealer)
        switch reply {
        case .httpError(let status, let body, let extra):
            return .error(status: status, body: body, headers: extra.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        case .usageLimitReached(let resetsIn):
            return await usageLimitReached(resetsInSeconds: resetsIn, services: services)
        case .text(let text):
            stream.begin()
            if request.reasoning != nil { stream.reasoning(summary: Wire.reasoningSummary) }
            if request.offersWebSearch {
                searchTheWeb(for: request, text: text, into: &stream)
            } else {
                stream.message(text)
            }
            stream.complete()
        case .slowText(let text, let interval):
            stream.begin()
            stream.message(text)
            stream.complete()
            await services.usage.recordResponse()
            return .stream(stream, ending: .finish, interval: interval)
        case .functionCall(let name, let arguments):
            stream.begin()
            if request.reasoning != nil { stream.reasoning(summary: Wire.reasoningSummary) }
            stream.functionCall(name: name, arguments: arguments)
            stream.complete()
        case .functionCalls(let calls):
            stream.begin()
            if request.reasoning != nil { stream.reasoning(summary: Wire.reasoningSummary) }
            for call in calls { stream.functionCall(name: call.name, arguments: call.arguments) }
            stream.complete()
        case .failed(let code, let message):
            stream.begin()
            stream.fail(code: code, message: message)
            await services.usage.recordResponse()
            return .stream(stream, ending: .finishAndClose, interval: nil)
        case .incomplete(let reason):
            stream.begin()
            stream.message(ChappieEmulator.defaultReply(for: request.lastUserText), stopAfterDeltas: 1)
            stream.incomplete(reason: reason)
        case .disconnect(let count):
            stream.begin()
            stream.message(ChappieEmulator.defaultReply(for: request.lastUserText))
            stream.complete()
            stream.keepOnly(firstEvents: max(0, count))
            await services.usage.recordResponse()
            return .stream(stream, ending: .abort, interval: nil)
        case .stall:
            await services.usage.recordResponse()
            return .stream(stream, ending: .stall, interval: nil)
        case .replaySSE(let body, let offsets, let interval):
            await services.usage.recordResponse()
            return .raw(chunks: chunks(of: body, at: offsets), ending: .finish, interval: interval)
        case .cut(let inner, let count, let cut):
            let ending: HTTPResponse.StreamEnding
            switch cut {
            case .close: ending = .abort
            case .reset: ending = .reset
            case .webSocketClose(let code, let reason): ending = .closeWebSocket(code: code, reason: reason)
            case .stall: ending = .stall
            case .stallIgnoringInterrupts: ending = .stallIgnoringInterrupts
            }
            switch await compose(inner, for: request, services: services) {
            case .stream(var cutStream, _, let interval):
                cutStream.keepOnly(firstEvents: max(0, count))
                return .stream(cutStream, ending: ending, interval: interval)
            case .raw(let chunks, _, let interval):
                return .raw(chunks: Array(chunks.prefix(max(0, count))), ending: ending, interval: interval)
            case let other:
                return other
            }
        case .dropConnection:
            return .drop
        case .compaction(let encryptedContent):
            stream.begin()
            stream.compaction(encryptedContent: encryptedContent)
            stream.complete()
        case .errorEvent(_, let type, let code, let message):
            stream.begin()
            stream.error(type: type, code: code, message: message)
            await services.usage.recordResponse()
            return .stream(stream, ending: .finishAndClose, interval: nil)
        }
        await services.usage.recordResponse()
        return .stream(stream, ending: .finish, interval: nil)
    }

    /// The scripted web search of a text reply: a search for the last user message's text (cut
    /// to 200 characters), a visit to ``ChappieEmulator/webSearchPageURL``, then `text` followed by
    /// ` (source: <title>)`, that suffix cited with a `url_citation` annotation whose indices
    /// count Unicode scalars, as the API's do. A structured-output reply (`text.format`
    /// `json_schema`, which the Codex CLI sends with its web search tool for `--output-schema`)
    /// keeps its text as is, uncited, so it still follows the schema.
    private static func searchTheWeb(for request: ResponsesRequest, text: String, into stream: inout ResponseEventStream) {
        let query = String(request.lastUserText.prefix(200))
        stream.webSearchCall(action: ["type": "search", "query": .string(query)])
        stream.webSearchCall(action: ["type": "open_page", "url": .string(ChappieEmulator.webSearchPageURL)])
        guard request.outputSchema == nil else {
            stream.message(text, annotations: [])
            return
        }
        let source = "source: " + ChappieEmulator.webSearchPageTitle
        let cited = text + " (" + source + ")"
        let start = text.unicodeScalars.count + 2
        let annotation: JSONValue = [
            "type": "url_citation", "start_index": .int(start), "end_index": .int(start + source.unicodeScalars.count),
            "title": .string(ChappieEmulator.webSearchPageTitle), "url": .string(ChappieEmulator.webSearchPageURL),
        ]
        stream.message(cited, annotations: [annotation])
    }

    /// `body` split before each offset in `offsets` that lies strictly inside it.
    private static func chunks(of body: Data, at offsets: [Int]) -> [Data] {
        var result = [Data]()
        var start = body.startIndex
        for offset in offsets.sorted() where offset > 0 && offset < body.count {
            let index = body.startIndex + offset
            guard index > start else { continue }
            result.append(body[start..<index])
            start = index
        }
        result.append(body[start..<body.endIndex])
        return result.filter { !$0.isEmpty }
    }

    /// The HTTP 429 usage-limit answer of PROTOCOL §7.3, with the limit family's headers at 100 %.
    private static func usageLimitReached(resetsInSeconds: Int, services: EmulatorServices) async -> ScriptedResponse {
        let now = Int(Date().timeIntervalSince1970)
        var snapshot = await services.usage.snapshot()
        if snapshot.secondaryUsedPercent < 100 || snapshot.primaryUsedPercent >= 100 {
            snapshot.primaryUsedPercent = 100
            snapshot.primaryResetAt = now + resetsInSeconds
        }
        let planType = services.configuration.account.planType
        let body: JSONValue = [
            "error": [
                "type": "usage_limit_reached",
                "message": "The usage limit has been reached",
                "plan_type": .string(planType),
                "resets_at": .int(now + resetsInSeconds),
                "resets_in_seconds": .int(resetsInSeconds),
            ]
        ]
        let headers = [(name: Wire.activeLimit, value: Wire.codexFamily)]
            + RateLimitHeaders.fields(snapshot, now: now, planType: planType)
        return .error(status: 429, body: body.serialized, headers: headers)
    }

    private enum Wire {
        static let activeLimit = "x-codex-active-limit"
        static let codexFamily = "codex"
        static let reasoningSummary = "**Reading the request**\n\nThe emulator follows its script for this reply."
    }
}
