import Foundation

/// Streams one response over a WebSocket (PROTOCOL §6): one `response.create` text frame, one
/// JSON event per frame back. A drop mid-stream reconnects (up to the policy's
/// `maxWebSocketReconnectionAttempts`, with back-off) and resends the request; the text the
/// server replays is suppressed by the handler's replay guard, and a different replay is
/// ``ChappieClientError/streamingTransportReplayDiverged(_:)``. When WebSocket cannot be used
/// (unsupported platform, 426, a 1008 policy close, exhausted reconnects, a 1009 too-big close),
/// it tells the runner to fall back to HTTP/SSE — sticky for the session except after 1009.
struct WebSocketStreamCoordinator: Sendable {
    /// How a WebSocket attempt ended.
    enum Outcome: Sendable {
        /// The response completed over the WebSocket.
        case completed(ChappieResponse)
        /// Use HTTP/SSE for this request; `sticky` = for the rest of the session too.
        case fallBack(sticky: Bool)
    }

    let runner: ResponseTurnRunner

    /// Base delay, in seconds, before reconnect *n* (doubling).
    static let reconnectDelay: TimeInterval = 0.2

    /// Runs the request. Throws typed failures of the response itself (`response.failed`,
    /// usage limits, divergence) and `CancellationError`; transport trouble becomes a fallback.
    func run(body: ChappieJSONValue, sessionID: String, handler: inout ResponseEventHandler,
             emit: @Sendable (ChappieStreamEvent) -> Void) async throws -> Outcome {
        let policy = runner.policy
        var authorization = try await runner.credentials.authorization()
        var retriedUnauthorized = false
        var reconnects = 0
        let frame = Self.frame(for: body)
        while true {
            try Task.checkCancellation()
            do {
                let headers = authorization.headers + runner.standardHeaders(sessionID: sessionID).filter {
                    $0.name != "Accept" && $0.name != "Content-Type"
                } + [WebSocketLimits.betaHeader]
                let connection = try await runner.webSockets.connect(url: Self.webSocketURL(runner.endpoints.responses),
                                                                     headers: headers, timeout: 15)
                defer { connection.close(code: 1000) }
                try await connection.send(text: frame)
                handler.beginAttempt()
                while true {
                    let message = try await withTaskCancellationHandler {
                        try await connection.receive()
                    } onCancel: {
                        connection.close(code: 1000)
                    }
                    guard case .text(let text) = message else {
                        throw WebSocketError.closed(code: 1003, reason: "binary frame")
                    }
                    guard let event = ResponsesEvent.decode(text) else { continue }
                    if case .error(_, let error) = event, error.code == "websocket_connection_limit_reached" {
                        throw WebSocketError.closed(code: 1000, reason: "connection limit reached")
                    }
                    if let response = try handler.handle(event, emit: emit) { return .completed(response) }
                }
            } catch let error as WebSocketError {
                try Task.checkCancellation()  // closed because the caller cancelled: not a drop to retry
                switch error {
                case .unsupported:
                    runner.logger(.info, "websocket.unsupported")
                    return .fallBack(sticky: true)
                case .handshakeRejected(401) where !retriedUnauthorized:
                    retriedUnauthorized = true
                    authorization = try await runner.credentials.recoverFromUnauthorized(rejected: authorization)
                    continue
                case .handshakeRejected(426), .closed(1008, _):
                    return .fallBack(sticky: true)
                case .closed(1009, _):
                    return .fallBack(sticky: false)
                case .handshakeRejected, .closed, .network:
                    reconnects += 1
                    runner.logger(.warning, "websocket.dropped", ["reconnect": "\(reconnects)"])
                    guard reconnects <= policy.maxWebSocketReconnectionAttempts else {
                        if policy.fallsBackToHTTPSSE { return .fallBack(sticky: true) }
                        if let failure = handler.pendingFailure { throw failure }
                        throw ChappieClientError.streamEndedBeforeCompletion
                    }
                    try await runner.time.sleep(.seconds(interval: Self.reconnectDelay * pow(2, Double(reconnects - 1))))
                }
            }
        }
    }

    /// The `response.create` frame: the HTTP body's fields plus the WebSocket-only `type`
    /// (PROTOCOL §6.2). `stream` is HTTP-only and left out.
    static func frame(for body: ChappieJSONValue) -> String {
        guard var object = body.objectValue else { return body.jsonString }
        object["type"] = "response.create"
        object["stream"] = nil
        return ChappieJSONValue.object(object).jsonString
    }

    /// `http(s)://…` → `ws(s)://…`.
    static func webSocketURL(_ url: URL) -> URL {
        ChappieEndpoints.webSocketURL(for: url)
    }
}
