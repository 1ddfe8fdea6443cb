import ChappieTransport
import Foundation

/// Streams one response over the client's Responses WebSocket (PROTOCOL §6): one
/// `response.create` text frame, one JSON event per frame back. The socket stays open between
/// requests and turns (``ResponsesSocket``), so a request that extends the previous one sends only
/// its new input items with `previous_response_id` (``IncrementalRequest``); a new socket, an
/// error, or a changed request sends the full request. The handshake goes through the client's
/// ``RequestPipeline``: a 401 refreshes once there; a second 401, with the renewed token, is the
/// socket's refusal, not the sign-in's, so the request goes over HTTP/SSE (sticky), which does its
/// own 401 handling.
///
/// A drop before any text was shown reconnects (up to the policy's
/// `maxWebSocketReconnectionAttempts`, with back-off) and resends the full request; reasoning text
/// the server replays is suppressed by the handler's replay guard. A drop after text was shown
/// ends the turn with ``ChappieClientError/streamEndedBeforeCompletion``, as over HTTP/SSE: the
/// request is never resent and the shown text stays as the partial reply. A send that does not
/// hand its frame to the network within `webSocketSendTimeout` (a half-open socket) closes the
/// socket; a second one sends the request over HTTP/SSE. The backend's 60-minute limit
/// (`websocket_connection_limit_reached`) opens a new socket at once and sends the full request,
/// once; a chain the server lost (`previous_response_not_found`) is sent again in full on the
/// same socket, once. Both only before any text was shown. A caller that cancels mid-response
/// returns at once; the response is interrupted (`response.interrupt`) in the background and the
/// socket kept when the server confirms (``ResponseInterrupt``). When WebSocket cannot be used
/// (unsupported platform, 426, a 401 after the refresh, a 1008 policy close, a TLS failure,
/// exhausted reconnects, a 1009 too-big close, timed-out sends), it tells the runner to fall back
/// to HTTP/SSE — sticky for the session except after 1009 and timed-out sends.
///
/// A warm-up (`generate` false) tries one handshake; when it is refused, the first request counts
/// it as its own first (``StreamingTransportState/takeWarmUpRefusal()``), so one turn never makes
/// more handshakes than the reconnect policy allows, and a refusal for good none more.
struct WebSocketStreamCoordinator: Sendable {
    /// How a WebSocket attempt ended.
    enum Outcome: Sendable {
        /// The response completed over the WebSocket; `handshakeHeaders` are the socket's
        /// `101 Switching Protocols` header fields (`x-models-etag` among them), names as sent.
        case completed(ChappieResponse, handshakeHeaders: HTTPFields)
        /// Use HTTP/SSE for this request; `sticky` = for the rest of the session too.
        case fallBack(sticky: Bool)
    }

    let runner: ResponseTurnRunner

    /// Runs the request (`generate` false: a prewarm that asks for no output). Throws typed
    /// failures of the response itself (`response.failed`, usage limits, divergence) and
    /// `CancellationError`; transport trouble becomes a fallback.
    func run(body: ChappieJSONValue, sessionID: String, generate: Bool = true, handler: inout ResponseEventHandler,
             emit: @Sendable (ChappieStreamEvent) -> Void) async throws -> Outcome {
        let pipeline = runner.pipeline
        let policy = pipeline.policy
        // A warm-up is best effort: one try, no reconnects.
        let reconnectBudget = generate ? policy.webSocketReconnects : 0
        var reconnects = 0
        if generate, let status = await runner.streaming.takeWarmUpRefusal() {
            // The warm-up's handshake was refused a moment ago: it was this request's first try.
            if status == 401 || Self.refusesForGood(status) {
                if runner.transportPolicy.fallsBackToHTTPSSE { return .fallBack(sticky: true) }
                throw ChappieClientError.webSocketUpgradeRefused(status: status, url: Self.displayedURL(pipeline.endpoints.responsesWebSocket))
            }
            reconnects = 1
        }
        var sendTimeouts = 0
        var rateLimitRetries = 0
        var renewedAtConnectionLimit = false
        var resentInFull = false
        while true {
            try Task.checkCancellation()
            var socket: ResponsesSocket.Open?
            var responseID: String?
            var watchdog: IdleWatchdog?
            defer { watchdog?.stop() }
            do {
                var open = try await usableSocket(sessionID: sessionID)
                socket = open
                let frame = IncrementalRequest.frame(for: body, after: open.memory, turnState: runner.turnState.value, generate: generate)
                pipeline.logger(.debug, "websocket.request", ["incremental": "\(frame.incremental)", "bytes": "\(frame.text.utf8.count)"])
                if frame.text.utf8.count > WebSocketLimits.maximumFrameBytes - 1024 {
                    // Larger than a frame may be: this request goes over HTTP/SSE, the socket stays.
                    await runner.socket.keep(open)
                    return .fallBack(sticky: false)
                }
                let connection = open.connection
                try await Self.send(frame.text, on: connection, within: policy.webSocketSendTimeout)
                watchdog = IdleWatchdog(timeout: policy.streamIdleTimeout) { connection.close(code: Wire.normalClosure) }
                handler.beginAttempt()
                while true {
                    // A cancelled receive leaves the socket open: the catch below interrupts the
                    // response so that the socket can carry the next request.
                    let message = try await connection.receive()
                    watchdog?.touch()
                    guard case .text(let text) = message else {
                        throw WebSocketError.closed(code: Wire.unsupportedData, reason: "binary frame")
                    }
                    guard let event = ResponsesEvent.decode(text) else { continue }
                    if case .turnState(let state) = event { runner.turnState.record(state) }
                    if case .created(let id?, _) = event { responseID = id }
                    if let response = try handler.handle(event, emit: emit) {
                        open.memory = IncrementalRequest.memory(of: body, responseID: response.id, outputItems: Self.replayed(response.items))
                        await runner.socket.keep(open)
                        return .completed(response, handshakeHeaders: connection.handshakeResponseHeaders)
                    }
                }
            } catch BackendFailure.connectionLimitReached {
                socket?.connection.close(code: Wire.normalClosure)
                // The socket reached its 60-minute limit (the handler throws this only while nothing
                // was shown): a new socket and the full request, once; a new socket that reports it
                // again ends the turn.
                guard !renewedAtConnectionLimit else { throw BackendFailure.connectionLimitReached.finalError }
                renewedAtConnectionLimit = true
                pipeline.logger(.info, "websocket.connection_limit")
            } catch BackendFailure.previousResponseNotFound(let error) {
                // The server lost the response this request chained onto: the same socket, the
                // full request, once.
                guard !resentInFull, var open = socket else { throw error }
                resentInFull = true
                pipeline.logger(.info, "websocket.previous_response_not_found")
                open.memory = nil
                await runner.socket.keep(open)
            } catch let failure as BackendFailure {
                // An `error` event before any text (the handler throws it as a failure only then),
                // handled like the HTTP answer it stands for, on a new socket.
                socket?.connection.close(code: Wire.normalClosure)
                switch failure {
                case .rateLimited(let retryAfter, _) where rateLimitRetries < policy.rateLimitBackoff.maxRetries:
                    rateLimitRetries += 1
                    let delay = policy.rateLimitBackoff.delay(forRetry: rateLimitRetries, retryAfter: retryAfter)
                    pipeline.logger(.warning, "request.rate_limited", ["call": "websocket", "retry": "\(rateLimitRetries)"])
                    try await pipeline.time.sleep(.seconds(interval: delay))
                case .transient where reconnects < reconnectBudget:
                    reconnects += 1
                    pipeline.logger(.warning, "websocket.server_error", ["reconnect": "\(reconnects)"])
                    try await pipeline.time.sleep(.seconds(interval: policy.reconnectDelay(forAttempt: reconnects)))
                default:
                    throw failure.finalError
                }
            } catch let error as WebSocketError {
                socket?.connection.close(code: Wire.normalClosure)
                try Task.checkCancellation()  // closed because the caller cancelled: not a drop to retry
                if watchdog?.fired == true {
                    // Silent for the idle timeout: HTTP/SSE for this request while nothing was shown.
                    pipeline.logger(.warning, "websocket.idle_timeout")
                    if handler.hasShownOutput { throw ChappieClientError.idleTimeout(policy.streamIdleTimeout) }
                    return .fallBack(sticky: false)
                }
                if handler.hasShownOutput {
                    // Text was shown: the turn ends here, as over HTTP/SSE. Resending would
                    // restart the reply under the user's eyes; the shown text stays as partial.
                    pipeline.logger(.warning, "websocket.dropped_after_output")
                    throw handler.pendingFailure ?? ChappieClientError.streamEndedBeforeCompletion
                }
                let url = Self.displayedURL(pipeline.endpoints.responsesWebSocket)
                switch error {
                case .unsupported:
                    pipeline.logger(.info, "websocket.unsupported")
                    return .fallBack(sticky: true)
                case .handshakeRejected(426), .closed(1008, _), .closed(Wire.tlsFailure, _):
                    return .fallBack(sticky: true)
                case .handshakeRejected(401):
                    // Refused again after the pipeline's one refresh: the socket will not take
                    // this sign-in, HTTP may (it does its own 401 handling); never a sign-out here.
                    pipeline.logger(.warning, "websocket.upgrade_unauthorized", ["url": url])
                    if runner.transportPolicy.fallsBackToHTTPSSE { return .fallBack(sticky: true) }
                    throw ChappieClientError.webSocketUpgradeRefused(status: 401, url: url)
                case .closed(1009, _):
                    return .fallBack(sticky: false)
                case .handshakeRejected(let status) where Self.refusesForGood(status):
                    // No WebSocket at this address (404, 421, …): reconnecting would be refused again.
                    pipeline.logger(.warning, "websocket.upgrade_refused", ["status": "\(status)", "url": url])
                    if runner.transportPolicy.fallsBackToHTTPSSE { return .fallBack(sticky: true) }
                    throw ChappieClientError.webSocketUpgradeRefused(status: status, url: url)
                case .openTimedOut:
                    // No answer to the upgrade by the connect deadline: reconnecting would wait as
                    // long again (5 reconnects were 90 s of silence), so HTTP/SSE at once, or fail.
                    pipeline.logger(.warning, "websocket.open_timed_out", ["url": url])
                    if runner.transportPolicy.fallsBackToHTTPSSE { return .fallBack(sticky: true) }
                    throw ChappieClientError.network(
                        "\(url): the WebSocket was not open within \(Int(policy.webSocketConnectTimeout)) seconds", mayHaveReachedServer: false)
                case .sendTimedOut:
                    // The socket did not take the frame in time (the peer stopped reading): a new
                    // socket, once; then this request goes over HTTP/SSE, or fails.
                    sendTimeouts += 1
                    pipeline.logger(.warning, "websocket.send_timed_out", ["attempt": "\(sendTimeouts)", "url": url])
                    guard sendTimeouts < policy.webSocketSendAttempts, reconnects < reconnectBudget else {
                        if generate, runner.transportPolicy.fallsBackToHTTPSSE { return .fallBack(sticky: false) }
                        throw ChappieClientError.network(
                            "\(url): the WebSocket did not take the request within \(Int(policy.webSocketSendTimeout)) seconds",
                            mayHaveReachedServer: false)
                    }
                    reconnects += 1
                    try await pipeline.time.sleep(.seconds(interval: policy.reconnectDelay(forAttempt: reconnects)))
                case .handshakeRejected, .closed, .network:
                    reconnects += 1
                    pipeline.logger(.warning, "websocket.dropped", ["reconnect": "\(reconnects)"])
                    guard reconnects <= reconnectBudget else {
                        // A warm-up never switches the session to HTTP/SSE: the request decides.
                        if generate, runner.transportPolicy.fallsBackToHTTPSSE { return .fallBack(sticky: true) }
                        if let failure = handler.pendingFailure { throw failure }
                        if case .handshakeRejected(let status) = error {
                            throw ChappieClientError.webSocketUpgradeRefused(status: status, url: url)
                        }
                        throw ChappieClientError.streamEndedBeforeCompletion
                    }
                    try await pipeline.time.sleep(.seconds(interval: policy.reconnectDelay(forAttempt: reconnects)))
                }
            } catch {
                if error is CancellationError, let open = socket, let responseID {
                    // The caller cancelled mid-response: interrupt it in the background and keep
                    // the socket if the server confirms (``ResponseInterrupt``); the caller
                    // returns now.
                    pipeline.logger(.debug, "websocket.interrupt")
                    await runner.socket.interrupt(open, responseID: responseID)
                    throw error
                }
                socket?.connection.close(code: Wire.normalClosure)
                throw error
            }
        }
    }

    /// The client's idle socket when it may carry this request (same account, no sign-out since,
    /// younger than ``ResponsesSocket/maximumAge``), else a new one, opened through the pipeline.
    private func usableSocket(sessionID: String) async throws -> ResponsesSocket.Open {
        let pipeline = runner.pipeline
        let authorization = try await pipeline.credentials.authorization(pipeline.credentialContext)
        let mark = await pipeline.credentials.signOutMark
        if let idle = await runner.socket.take() {
            if idle.isUsable(accountID: authorization.accountID, signOutMark: mark, now: pipeline.time.now()) { return idle }
            idle.connection.close(code: Wire.normalClosure)
        }
        let url = pipeline.endpoints.responsesWebSocket
        var headers = pipeline.standardHeaders(sessionID: sessionID).removing(Wire.httpOnlyHeaders)
        headers.append(WebSocketLimits.betaHeader)
        let timeout = pipeline.policy.webSocketConnectTimeout
        var unauthorizedUpgrades = 0
        let connection = try await pipeline.perform("websocket") { authorization in
            do {
                return try await runner.webSockets.connect(url: url, headers: try authorization.headers(to: url, endpoints: pipeline.endpoints) + headers,
                                                           timeout: timeout)
            } catch WebSocketError.handshakeRejected(status: 401) {
                // The first 401 refreshes (once, in the pipeline); a second one, with the renewed
                // token, goes to the coordinator as the socket's refusal: not the sign-in's end.
                unauthorizedUpgrades += 1
                guard unauthorizedUpgrades == 1 else { throw WebSocketError.handshakeRejected(status: 401) }
                throw BackendFailure.unauthorized(code: nil)
            }
        }
        let turnState = connection.handshakeResponseHeaders[TurnState.headerName]
        runner.turnState.record(turnState)
        return ResponsesSocket.Open(connection: connection, accountID: authorization.accountID, signOutMark: mark,
                                    openedAt: pipeline.time.now(), memory: nil)
    }

    /// Sends `text` on `connection` within `seconds` (waiting with ``HTTPDeadline/sleep``, which a
    /// test binds); at the deadline the connection is closed, which ends the send on every
    /// platform (a cancelled `URLSessionWebSocketTask` send may never return). Throws
    /// ``WebSocketError`` (`.sendTimedOut` at the deadline) or `CancellationError`.
    static func send(_ text: String, on connection: any WebSocketConnection, within seconds: TimeInterval) async throws {
        let timedOut = LockedBox(false)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await connection.send(text: text) }
                group.addTask {
                    try await HTTPDeadline.sleep.get()(.seconds(interval: seconds))
                    timedOut.withLock { $0 = true }
                    connection.close(code: Wire.normalClosure)
                    throw WebSocketError.sendTimedOut
                }
                defer { group.cancelAll() }
                _ = try await group.next()
            }
        } catch where timedOut.withLock({ $0 }) {
            throw WebSocketError.sendTimedOut
        }
    }

    /// Whether an upgrade answered with `status` shows the address has no WebSocket, so another
    /// attempt would be refused too: a 4xx other than 401 (refreshed first), 408 and 429.
    static func refusesForGood(_ status: Int) -> Bool {
        (400..<500).contains(status) && ![401, 408, 429].contains(status)
    }

    /// `url` as an error names it: scheme, host, port and path, never a query.
    static func displayedURL(_ url: URL) -> String { DisplayedURL.string(url) }

    /// Output items in the form the client sends them back as input (what an incremental
    /// request's input must start with).
    static func replayed(_ items: [ChappieJSONValue]) -> [ChappieJSONValue] {
        items.compactMap(ChappieTranscriptItem.fromOutputItem).map(\.inputItem)
    }

    private enum Wire {
        static let normalClosure = 1000
        static let unsupportedData = 1003
        /// RFC 6455 §7.4.1: the TLS handshake failed (certificate or host name not verified).
        static let tlsFailure = 1015
        /// Standard headers that describe an HTTP body and are not sent on the upgrade.
        static let httpOnlyHeaders: Set<String> = ["Accept", "Content-Type"]
    }
}
