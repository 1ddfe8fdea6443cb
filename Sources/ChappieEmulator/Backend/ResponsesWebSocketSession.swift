import Foundation

/// One Responses WebSocket connection (PROTOCOL §6.2–6.3): each `response.create` text frame is
/// answered with the same events as the SSE stream, one JSON object per text frame, preceded by a
/// `codex.rate_limits` event. The session keeps the last response's full input and output, so a
/// frame with `previous_response_id` only carries the new input items, even with `store:false`.
/// `"generate": false` (prewarm) answers `response.created` + `response.completed` with no output.
/// Errors become `{"type":"error","status":…,"error":{…}}` events. Runs on the connection thread.
///
/// What Codex 0.163.0 relies on besides: the response objects of an incremental request echo its
/// `previous_response_id`; the turn's sticky-routing token travels in a `response.metadata` event
/// after `response.created` (`{"type":"response.metadata","response_id":…,"headers":{"x-codex-turn-state":…}}`),
/// and the client echoes it in the next frame's `client_metadata["x-codex-turn-state"]`, which the
/// session then keeps. Client frames besides `response.create`: `response.interrupt` (while a
/// response streams, `mode: discard_partial_items` ends it with `response.incomplete`, reason
/// `interrupted`, output `[]`, and the socket stays open; it is ignored when nothing streams or the
/// `response_id` is another's) and `response.processed` (an acknowledgement, recorded, no answer).
///
/// Framing answers: a binary message is refused with close 1003 (unsupported data; the protocol
/// only uses text frames, PROTOCOL §6.2); protocol errors, 1007 and 1009 are described on
/// ``WebSocketConnection``. Pings are answered, also while a response is being streamed. When
/// the client closes the socket (close frame or EOF), a ``ChappieEmulator/ClosedStream`` is
/// recorded. Faults: ``ChappieEmulator/WebSocketFault`` for the handshake, and the
/// ``ChappieEmulator/ScriptedReply`` cases `cut`, `dropConnection`, `errorEvent`, `stall`,
/// `failed` (close 1000 after `response.failed`) inside a response.
final class ResponsesWebSocketSession {
    private let services: EmulatorServices
    private let connection: WebSocketConnection
    private var previous: (id: String, items: [JSONValue])?
    private let accountID: String?
    private var framesSent = 0
    private var inResponse = false
    /// The `id` of the response being streamed, for `response.interrupt`.
    private var streamingResponseID: String?

    /// Creates a session over an upgraded connection opened with a token of `accountID`.
    init(services: EmulatorServices, connection: WebSocketConnection, accountID: String?) {
        self.services = services
        self.connection = connection
        self.accountID = accountID
    }

    /// Serves frames until the peer leaves or a fault ends the connection, after applying the
    /// handshake fault `fault` (if any).
    func run(fault: ChappieEmulator.WebSocketFault? = nil) {
        let services = self.services
        defer { recordIfClientClosed() }
        switch fault {
        case .closeAfterAccept(let code, let reason)?:
            connection.close(code: code, reason: reason)
            return
        case .dropAfterAccept?:
            connection.dropWithoutCloseFrame()
            return
        case .stopReading?:
            connection.waitUntilHungUp()
            return
        case .refuseHandshake?, nil:
            break
        }
        while true {
            switch connection.receive() {
            case .closed:
                return
            case .binary:
                connection.close(code: Wire.unsupportedData, reason: Wire.binaryRefused)
                return
            case .text(let text):
                BlockingBridge.run { await services.recorder.recordWebSocketMessage(path: Wire.path, text: text) }
                guard handle(text) else { return }
            }
        }
    }

    private func recordIfClientClosed() {
        guard connection.closedByPeer else { return }
        let stream = ChappieEmulator.ClosedStream(
            transport: .webSocket, path: Wire.path, messagesSent: framesSent, duringResponse: inResponse,
            closeCode: connection.peerCloseCode
        )
        let closed = services.closedStreams
        BlockingBridge.run { await closed.record(stream) }
    }

    /// Answers one frame; false when the connection must end.
    private func handle(_ text: String) -> Bool {
        guard let frame = JSONValue.parse(Data(text.utf8)), let members = frame.objectMembers else {
            return sendError(status: 400, code: Wire.invalidJSONCode, message: Wire.invalidJSON)
        }
        switch frame[Wire.type]?.stringValue {
        case Wire.responseCreate?: break
        case Wire.responseInterrupt?, Wire.responseProcessed?: return true  // nothing is streaming: no answer
        default: return sendError(status: 400, code: Wire.unknownEventCode, message: Wire.unknownEvent)
        }
        let turnState = frame[Wire.clientMetadata]?[Wire.turnState]?.stringValue ?? RandomIdentifier.prefixed("ts_", hexCount: 24)
        var body = members.filter { !Wire.frameOnlyKeys.contains($0.0) }
        if !body.contains(where: { $0.0 == Wire.stream }) { body.append((Wire.stream, true)) }
        if let previousID = frame[Wire.previousResponseID]?.stringValue {
            guard let previous, previous.id == previousID else {
                return sendError(status: 400, code: Wire.previousNotFoundCode, message: Wire.previousNotFound(previousID))
            }
            let newItems = frame[Wire.input]?.arrayValue ?? []
            body.removeAll { $0.0 == Wire.input }
            body.append((Wire.input, .array(previous.items + newItems)))
        }
        var request: ResponsesRequest
        switch ResponsesRequestValidator.validate(.object(body), maximumImageBytes: services.configuration.maximumImageBytes) {
        case .success(let parsed): request = parsed
        case .failure(let failure): return sendError(status: 400, code: Wire.invalidRequestCode, message: failure.detail)
        }
        if let unreadable = services.sealer.unreadableContentMessage(in: request.input) {
            return sendError(status: 400, type: ContentSealer.errorType, code: ContentSealer.errorCode, message: unreadable)
        }
        request.previousResponseID = frame[Wire.previousResponseID]?.stringValue
        inResponse = true
        let open = respond(to: request, generate: frame[Wire.generate]?.boolValue != false, turnState: turnState)
        if open { inResponse = false }
        return open
    }

    /// Streams the answer to `request` (`generate` false: a prewarm with no output); false when
    /// the connection must end.
    private func respond(to request: ResponsesRequest, generate: Bool, turnState: String) -> Bool {
        let services = self.services
        let snapshot = BlockingBridge.run { await services.usage.snapshot() }
        guard send(rateLimitsEvent(snapshot).serialized, after: nil) else { return false }
        if !generate {
            var stream = ResponseEventStream(request: request, deltaCharacters: services.configuration.deltaCharacters, sealer: services.sealer)
            stream.begin()
            stream.complete()
            return send(stream, ending: .finish, interval: nil, request: request, skippingProgress: true, turnState: turnState)
        }
        let accountID = self.accountID
        let reply = BlockingBridge.run { await ScriptedResponse.nextReply(for: request, accountID: accountID, services: services) }
        if case .errorEvent(let status, let type, let code, let message) = reply {
            return sendError(status: status, type: type, code: code, message: message)
        }
        let composed = BlockingBridge.run { await ScriptedResponse.compose(reply, for: request, services: services) }
        switch composed {
        case .error(let status, let body, let headers):
            return sendErrorEvent(status: status, body: body, headers: headers)
        case .drop:
            connection.dropWithoutCloseFrame()
            return false
        case .stream(let stream, let ending, let interval):
            return send(stream, ending: ending, interval: interval, request: request, skippingProgress: false, turnState: turnState)
        case .raw(let chunks, let ending, let interval):
            for payload in SSEPayloads.parse(chunks.reduce(Data(), +)) {
                guard send(payload, after: interval) else { return false }
            }
            return end(with: ending)
        }
    }

    /// Sends the events of `stream` (after `codex.rate_limits`; `response.metadata` with
    /// `turnState` after `response.created`), then applies `ending`; a finished response becomes the
    /// connection's previous response. A `response.interrupt` for it that arrives meanwhile ends it
    /// with `response.incomplete` (reason `interrupted`) instead; the connection stays open.
    private func send(
        _ stream: ResponseEventStream, ending: HTTPResponse.StreamEnding, interval: Duration?, request: ResponsesRequest,
        skippingProgress: Bool, turnState: String
    ) -> Bool {
        streamingResponseID = stream.responseID
        defer { streamingResponseID = nil }
        for event in stream.events where !(skippingProgress && event.type == Wire.inProgress) {
            guard send(event.payload, after: interval) else { return false }
            if event.type == Wire.created {
                let metadata: JSONValue = [
                    Wire.type: .string(Wire.responseMetadata), Wire.responseID: .string(stream.responseID),
                    Wire.headers: [Wire.turnState: .string(turnState)],
                ]
                guard send(metadata.serialized, after: nil) else { return false }
            }
            if takeInterrupt(of: stream.responseID) { return sendInterrupted(stream) }
        }
        if case .stall = ending {
            // A stalled reply still answers an interrupt, and only that, as the backend does.
            while connection.serviceIncoming(within: Self.stallWait, endingEarlyFor: { Self.isControl($0, interruptOnly: true) }) {
                if takeInterrupt(of: stream.responseID) { return sendInterrupted(stream) }
            }
            return false
        }
        guard end(with: ending) else { return false }
        previous = (stream.responseID, request.input + stream.output)
        return true
    }

    /// Ends `stream` as interrupted: `response.incomplete` (reason `interrupted`) with no output.
    private func sendInterrupted(_ stream: ResponseEventStream) -> Bool {
        var interrupted = stream
        interrupted.discardOutput()
        interrupted.incomplete(reason: Wire.interrupted)
        return send(interrupted.events.last!.payload, after: nil)
    }

    /// How long a stalled reply waits between looks for an interrupt (it waits until the client
    /// leaves; a close or an interrupt ends a wait at once).
    private static let stallWait: Duration = .seconds(60)

    /// Whether a `response.interrupt` with `mode: discard_partial_items` for `responseID` (or
    /// without `response_id`) arrived while it streamed; other interrupts and `response.processed`
    /// frames that arrived meanwhile are dropped, other messages wait for ``WebSocketConnection/receive()``.
    private func takeInterrupt(of responseID: String) -> Bool {
        while let incoming = connection.takePending(where: { Self.isControl($0, interruptOnly: false) }) {
            guard case .text(let text) = incoming, let frame = JSONValue.parse(Data(text.utf8)) else { continue }
            let services = self.services
            BlockingBridge.run { await services.recorder.recordWebSocketMessage(path: Wire.path, text: text) }
            guard frame[Wire.type]?.stringValue == Wire.responseInterrupt,
                  frame[Wire.mode]?.stringValue == Wire.discardPartialItems,
                  (frame[Wire.responseID]?.stringValue).map({ $0 == responseID }) ?? true else { continue }
            return true
        }
        return false
    }

    /// Whether `incoming` is a `response.interrupt` frame (or, unless `interruptOnly`, a
    /// `response.processed` one).
    private static func isControl(_ incoming: WebSocketConnection.Incoming, interruptOnly: Bool) -> Bool {
        guard case .text(let text) = incoming, let type = JSONValue.parse(Data(text.utf8))?[Wire.type]?.stringValue else { return false }
        return type == Wire.responseInterrupt || (!interruptOnly && type == Wire.responseProcessed)
    }

    /// Sends one text frame after waiting `interval` (nil = no wait) while answering pings and
    /// noticing a client close; false when the connection ended. A `response.interrupt` ends the
    /// wait at once, as the real backend's instant interrupt does.
    private func send(_ payload: String, after interval: Duration?) -> Bool {
        let waited = connection.serviceIncoming(within: interval ?? .zero, endingEarlyFor: { Self.isControl($0, interruptOnly: true) })
        guard waited, connection.sendText(payload) else { return false }
        framesSent += 1
        return true
    }

    /// Applies a stream ending; true when the connection stays open for the next request.
    private func end(with ending: HTTPResponse.StreamEnding) -> Bool {
        switch ending {
        case .finish:
            return true
        case .finishAndClose:
            connection.close(code: Wire.normalClosure)
        case .abort:
            connection.dropWithoutCloseFrame()
        case .reset:
            connection.reset()
        case .closeWebSocket(let code, let reason):
            connection.close(code: code, reason: reason)
        case .stall, .stallIgnoringInterrupts:
            connection.waitUntilClosed()
        }
        return false
    }

    /// The WebSocket-only `codex.rate_limits` event (PROTOCOL §6.2).
    private func rateLimitsEvent(_ snapshot: UsageMeter.Snapshot) -> JSONValue {
        func window(_ percent: Int, _ seconds: Int, _ resetAt: Int) -> JSONValue {
            ["used_percent": .int(percent), "window_minutes": .int(seconds / 60), "reset_at": .int(resetAt)]
        }
        let reached = snapshot.primaryUsedPercent >= 100
        return [
            Wire.type: "codex.rate_limits",
            "plan_type": .string(services.configuration.account.planType),
            "rate_limits": [
                "allowed": .bool(!reached),
                "limit_reached": .bool(reached),
                "primary": window(snapshot.primaryUsedPercent, UsageMeter.primaryWindowSeconds, snapshot.primaryResetAt),
                "secondary": window(snapshot.secondaryUsedPercent, UsageMeter.secondaryWindowSeconds, snapshot.secondaryResetAt),
            ],
            "code_review_rate_limits": .null,
            "credits": ["has_credits": false, "unlimited": false, "balance": "0"],
            "promo": .null,
        ]
    }

    private func sendError(status: Int, type: String = Wire.invalidRequestType, code: String, message: String) -> Bool {
        let body: JSONValue = [
            Wire.type: "error", "status": .int(status),
            "error": ["type": .string(type), "code": .string(code), "message": .string(message)],
        ]
        return send(body.serialized, after: nil)
    }

    /// An HTTP-style error as a WebSocket error event; a JSON body's `error` object (or the FastAPI
    /// `detail`) becomes `error`, headers go into `headers`.
    private func sendErrorEvent(status: Int, body: String, headers: [(name: String, value: String)]) -> Bool {
        let parsed = JSONValue.parse(Data(body.utf8))
        let error: JSONValue = parsed?["error"]?.objectMembers != nil ? parsed!["error"]!
            : ["message": .string(parsed?["detail"]?.stringValue ?? body)]
        let event: JSONValue = [
            Wire.type: "error", "status": .int(status), "error": error,
            "headers": .object(headers.map { ($0.name, .string($0.value)) }),
        ]
        return send(event.serialized, after: nil)
    }

    private enum Wire {
        static let path = "/backend-api/codex/responses"
        static let type = "type"
        static let input = "input"
        static let stream = "stream"
        static let generate = "generate"
        static let previousResponseID = "previous_response_id"
        static let responseCreate = "response.create"
        static let responseInterrupt = "response.interrupt"
        static let responseProcessed = "response.processed"
        static let responseMetadata = "response.metadata"
        static let created = "response.created"
        static let responseID = "response_id"
        static let headers = "headers"
        static let clientMetadata = "client_metadata"
        static let turnState = "x-codex-turn-state"
        static let mode = "mode"
        static let discardPartialItems = "discard_partial_items"
        static let interrupted = "interrupted"
        static let inProgress = "response.in_progress"
        static let frameOnlyKeys: Set<String> = ["type", "generate", "previous_response_id", "client_metadata"]
        static let normalClosure: UInt16 = 1000
        static let unsupportedData: UInt16 = 1003
        static let binaryRefused = "Binary frames are not supported."
        static let invalidRequestType = "invalid_request_error"
        static let invalidJSONCode = "invalid_json"
        static let invalidJSON = "The frame is not a JSON object."
        static let unknownEventCode = "unknown_event_type"
        static let unknownEvent = "Only response.create, response.interrupt and response.processed events are supported."
        static let invalidRequestCode = "invalid_request"
        static let previousNotFoundCode = "previous_response_not_found"
        static func previousNotFound(_ id: String) -> String { "Previous response with id '\(id)' not found." }
    }
}
