import Foundation

/// `POST /backend-api/codex/responses` (PROTOCOL §4, §5): checks the bearer, decodes an optional
/// `Content-Encoding: zstd` body, applies the §4.7 rejections, then streams the scripted reply as
/// chunked SSE with the rate-limit and routing headers of §4.6 and §7.1.
struct ResponsesEndpoint {
    /// The shared state.
    let services: EmulatorServices

    /// Answers one `/responses` call.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        if let rejection = await BackendAuthorization.reject(request, services: services) { return rejection }
        var body = request.body
        if let encoding = request.header(Wire.contentEncoding)?.lowercased(), encoding != Wire.identity {
            guard encoding == Wire.zstd else { return .detail(415, Wire.unsupportedEncoding(encoding)) }
            switch ZstdDecoder.decode(body, maximumBytes: HTTPRequestReader.maximumBodyBytes) {
            case .success(let decoded): body = decoded
            case .failure(.libraryUnavailable): return .detail(415, Wire.unsupportedEncoding(encoding))
            case .failure: return .detail(400, Wire.invalidZstd)
            }
        }
        let parsed: ResponsesRequest
        switch ResponsesRequestValidator.validate(JSONValue.parse(body)) {
        case .success(let request): parsed = request
        case .failure(let failure): return .detail(400, failure.detail)
        }

        let requestID = RandomIdentifier.prefixed("req_")
        let reply = await services.replies.next() ?? ScriptedModel.reply(to: parsed)
        if case .httpError(let status, let text, let extra) = reply {
            var headers: [(name: String, value: String)] = [(Wire.contentType, Wire.json), (Wire.requestID, requestID)]
            headers += extra.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            return HTTPResponse(status: status, headers: headers, body: .bytes(Data(text.utf8)))
        }
        if case .usageLimitReached(let resetsIn) = reply {
            return await usageLimitReached(resetsInSeconds: resetsIn, requestID: requestID)
        }

        await services.usage.recordResponse()
        let snapshot = await services.usage.snapshot()
        var headers: [(name: String, value: String)] = [
            (Wire.contentType, Wire.eventStream),
            (Wire.cacheControl, Wire.noCache),
            (Wire.requestID, requestID),
            (Wire.openAIModel, parsed.model),
            (Wire.modelsETag, ModelsCatalog.etag),
            (Wire.turnState, request.header(Wire.turnState) ?? RandomIdentifier.prefixed("ts_", hexCount: 24)),
        ]
        headers += RateLimitHeaders.fields(
            snapshot, now: Int(Date().timeIntervalSince1970), planType: services.configuration.account.planType
        )

        var stream = ResponseEventStream(request: parsed, deltaCharacters: services.configuration.deltaCharacters)
        let ending: HTTPResponse.StreamEnding
        var keepEvents: Int?
        var interval: Duration?
        switch reply {
        case .slowText(let text, let eventInterval):
            stream.begin()
            stream.message(text)
            stream.complete()
            interval = eventInterval
            ending = .finish
        case .text(let text):
            stream.begin()
            if parsed.reasoning != nil { stream.reasoning(summary: Wire.reasoningSummary) }
            stream.message(text)
            stream.complete()
            ending = .finish
        case .functionCall(let name, let arguments):
            stream.begin()
            if parsed.reasoning != nil { stream.reasoning(summary: Wire.reasoningSummary) }
            stream.functionCall(name: name, arguments: arguments)
            stream.complete()
            ending = .finish
        case .failed(let code, let message):
            stream.begin()
            stream.fail(code: code, message: message)
            ending = .finishAndClose
        case .incomplete(let reason):
            stream.begin()
            stream.message(ChappieEmulator.defaultReply(for: parsed.lastUserText), stopAfterDeltas: 1)
            stream.incomplete(reason: reason)
            ending = .finish
        case .disconnect(let count):
            stream.begin()
            stream.message(ChappieEmulator.defaultReply(for: parsed.lastUserText))
            stream.complete()
            keepEvents = max(0, count)
            ending = .abort
        case .stall:
            ending = .stall
        case .httpError, .usageLimitReached:
            preconditionFailure("answered before streaming")
        }
        var chunks = stream.events.map(\.bytes)
        if let keepEvents { chunks = Array(chunks.prefix(keepEvents)) }
        return HTTPResponse(status: 200, headers: headers, body: .stream(chunks: chunks, ending: ending, interval: interval))
    }

    /// The HTTP 429 usage-limit answer of PROTOCOL §7.3, with the limit family's headers at 100 %.
    private func usageLimitReached(resetsInSeconds: Int, requestID: String) async -> HTTPResponse {
        let now = Int(Date().timeIntervalSince1970)
        var snapshot = await services.usage.snapshot()
        snapshot.primaryUsedPercent = 100
        snapshot.primaryResetAt = now + resetsInSeconds
        let planType = services.configuration.account.planType
        var headers: [(name: String, value: String)] = [(Wire.requestID, requestID), (Wire.activeLimit, Wire.codexFamily)]
        headers += RateLimitHeaders.fields(snapshot, now: now, planType: planType)
        return .json(429, [
            "error": [
                "type": "usage_limit_reached",
                "message": "The usage limit has been reached",
                "plan_type": .string(planType),
                "resets_at": .int(now + resetsInSeconds),
                "resets_in_seconds": .int(resetsInSeconds),
            ]
        ], headers: headers)
    }

    private enum Wire {
        static let contentEncoding = "Content-Encoding"
        static let contentType = "Content-Type"
        static let cacheControl = "Cache-Control"
        static let requestID = "x-request-id"
        static let openAIModel = "openai-model"
        static let modelsETag = "x-models-etag"
        static let turnState = "x-codex-turn-state"
        static let activeLimit = "x-codex-active-limit"
        static let codexFamily = "codex"
        static let identity = "identity"
        static let zstd = "zstd"
        static let json = "application/json"
        static let eventStream = "text/event-stream; charset=utf-8"
        static let noCache = "no-cache"
        static let invalidZstd = "Invalid zstd-compressed request body"
        static let reasoningSummary = "**Reading the request**\n\nThe emulator follows its script for this reply."
        static func unsupportedEncoding(_ encoding: String) -> String { "Unsupported Content-Encoding: \(encoding)" }
    }
}
