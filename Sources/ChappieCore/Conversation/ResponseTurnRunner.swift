import ChappieTransport
import Foundation

/// Runs one Responses request and streams its events: over a WebSocket first when the policy
/// prefers it and this session has not fallen back, otherwise over HTTP/SSE. Both go through the
/// client's ``RequestPipeline`` (authorization, one refresh after a 401, back-off after a 429,
/// bounded retries of 5xx and network failures while nothing has been shown).
struct ResponseTurnRunner: Sendable {
    /// The client's request pipeline.
    let pipeline: RequestPipeline
    /// Which transport to try first.
    let transportPolicy: ChappieStreamingTransportPolicy
    /// The session's sticky WebSocket fallback.
    let streaming: StreamingTransportState
    /// Opens WebSocket connections.
    let webSockets: any WebSocketConnector
    /// The client's WebSocket, kept open between requests.
    let socket: ResponsesSocket
    /// The sticky-routing token of the current turn.
    let turnState: TurnState
    /// Whether HTTP request bodies are zstd-compressed where libzstd is available (PROTOCOL §4.2).
    let compressesRequests: Bool

    /// The slot's credential owner (requests race its sign-outs).
    var credentials: CredentialManager { pipeline.credentials }

    /// Runs the request and returns the completed response; `emit` receives deltas and usage as
    /// they arrive. Throws ``ChappieClientError`` or `CancellationError`.
    func run(body: ChappieJSONValue, sessionID: String, emit: @Sendable (ChappieStreamEvent) -> Void) async throws -> ChappieResponse {
        do {
            return try await runReportingHead(body: body, sessionID: sessionID, emit: emit).response
        } catch let interruption as TurnInterruption {
            throw interruption.error
        }
    }

    /// Like ``run(body:sessionID:emit:)``, also returning the successful response's head (for
    /// `x-models-etag` and similar headers). A failure after text was shown is thrown as a
    /// ``TurnInterruption`` that carries the shown text.
    func runReportingHead(body: ChappieJSONValue, sessionID: String, emit: @Sendable (ChappieStreamEvent) -> Void) async throws
        -> (response: ChappieResponse, head: HTTPResponseHead) {
        var handler = ResponseEventHandler()
        if let token = await pipeline.credentials.echoableAccessToken() { handler.guardEchoes(of: [token]) }
        do {
            return try await runReportingHead(body: body, sessionID: sessionID, handler: &handler, emit: emit)
        } catch {
            guard handler.hasShownOutput else { throw error }
            throw TurnInterruption(shownText: handler.shownText, error: error)
        }
    }

    private func runReportingHead(body: ChappieJSONValue, sessionID: String, handler: inout ResponseEventHandler,
                                  emit: @Sendable (ChappieStreamEvent) -> Void) async throws -> (response: ChappieResponse, head: HTTPResponseHead) {
        // The credential's route picks the backend; the public API takes HTTP/SSE only, and its
        // own allowlisted body (SIWC.md §4.2).
        if try await pipeline.backend() == .publicAPI {
            let allowed = PublicAPIRequestBody.make(from: body, omitting: await streaming.refusedFields)
            return try await runHTTP(body: Data(allowed.jsonString.utf8), backend: .publicAPI, sessionID: sessionID, handler: &handler,
                                     emit: emit)
        }
        // Encoded for HTTP only when it goes there: a WebSocket turn encodes just its frame (the
        // new items on a kept socket), so it costs what it adds, not the whole conversation.
        if await streaming.shouldTryWebSocket(policy: transportPolicy) {
            let coordinator = WebSocketStreamCoordinator(runner: self)
            switch try await coordinator.run(body: body, sessionID: sessionID, handler: &handler, emit: emit) {
            case .completed(var response, let handshakeHeaders):
                response.transport = .webSocket
                // The socket's handshake head: its x-models-etag tells the client whether its
                // model catalog is current, as an HTTP response's head does.
                return (response, HTTPResponseHead(status: 101, headers: handshakeHeaders))
            case .fallBack(let sticky):
                if sticky { await streaming.disableWebSocket() }
                pipeline.logger(.warning, "websocket.fallback", ["sticky": "\(sticky)"])
            }
        }
        return try await runHTTP(body: Data(body.jsonString.utf8), backend: .codex, sessionID: sessionID, handler: &handler, emit: emit)
    }

    /// Opens the WebSocket and warms it (PROTOCOL §6.3): a `response.create` with the request's
    /// fields, `"generate": false` and no input, so the first real request goes out incremental
    /// on a connection that is already up. Best effort, one handshake: any failure is logged and
    /// forgotten (a platform without WebSocket support still marks the session for HTTP/SSE; a
    /// refused upgrade counts as the first request's first handshake).
    func prewarm(body: ChappieJSONValue, sessionID: String) async {
        guard await streaming.shouldTryWebSocket(policy: transportPolicy), (try? await pipeline.backend()) == .codex,
              var object = body.objectValue else { return }
        object[Wire.input] = []
        var handler = ResponseEventHandler()
        do {
            let outcome = try await WebSocketStreamCoordinator(runner: self).run(body: .object(object), sessionID: sessionID, generate: false,
                                                                                 handler: &handler, emit: { _ in })
            if case .fallBack(sticky: true) = outcome { await streaming.disableWebSocket() }
        } catch ChappieClientError.webSocketUpgradeRefused(let status, _) {
            // The first request counts this handshake as its own first try.
            await streaming.noteWarmUpRefusal(status: status)
            pipeline.logger(.info, "websocket.prewarm_failed", ["status": "\(status)"])
        } catch {
            pipeline.logger(.info, "websocket.prewarm_failed")
        }
    }

    /// Sends the request over HTTP/SSE through the pipeline, to `backend`: on the ChatGPT/Codex
    /// backend with its turn state, rate-limit headers and zstd; on the public API with none of
    /// them, an answer's `Content-Type` checked and its request id kept in its errors.
    private func runHTTP(body: Data, backend: InferenceBackend, sessionID: String, handler: inout ResponseEventHandler,
                         emit: @Sendable (ChappieStreamEvent) -> Void) async throws -> (response: ChappieResponse, head: HTTPResponseHead) {
        do {
            return try await runHTTPThroughPipeline(body: body, backend: backend, sessionID: sessionID, handler: &handler, emit: emit)
        } catch ChappieClientError.publicAPI(let error) where error.code == .unsupportedCapability {
            // Never sent again as it was: an optional field the server named is left out from now on.
            if let param = error.param { await streaming.refuse(param: param) }
            throw ChappieClientError.publicAPI(error)
        }
    }

    private func runHTTPThroughPipeline(body: Data, backend: InferenceBackend, sessionID: String, handler: inout ResponseEventHandler,
                                        emit: @Sendable (ChappieStreamEvent) -> Void) async throws
        -> (response: ChappieResponse, head: HTTPResponseHead) {
        let requestID = UUID().uuidString.lowercased()
        let policy = pipeline.policy
        let url = backend.responsesURL(pipeline.endpoints)
        var attempt = 0
        // Compressed once, sent as is on every attempt.
        let compressed = backend == .codex && compressesRequests ? ZstdCompression.compress(body) : nil
        handler.backend = backend
        return try await pipeline.perform("responses") { authorization in
            attempt += 1
            pipeline.logger(.debug, "responses.request", ["request_id": requestID, "attempt": "\(attempt)"])
            var headers = try authorization.headers(to: url, endpoints: pipeline.endpoints) + pipeline.standardHeaders(for: backend, sessionID: sessionID)
            if backend == .codex, let state = turnState.value { headers.append(name: TurnState.headerName, value: state) }
            if compressed != nil { headers.append(ZstdCompression.contentEncoding) }
            let request = HTTPRequest(method: .post, url: url, headers: headers, body: compressed ?? body,
                                      idleTimeout: policy.streamIdleTimeout, headTimeout: policy.responseHeadTimeout,
                                      maximumBodyBytes: policy.maximumStreamBytes)
            let (head, bytes) = try await pipeline.open(request)
            switch backend {
            case .codex:
                turnState.record(head.header(TurnState.headerName))
                if let usage = RateLimitHeaders.snapshot(from: head.headers, now: pipeline.time.now()) { emit(.usageLimits(usage)) }
            case .publicAPI:
                handler.requestID = PublicAPIErrorMapping.requestID(in: head.headers)
                if let contentType = head.header(Wire.contentType), !Self.isEventStream(contentType) {
                    bytes.cancel()
                    pipeline.logger(.warning, "responses.wrong_content_type", ["request_id": handler.requestID ?? "none"])
                    throw ChappieClientError.invalidResponse("the stream's Content-Type is not text/event-stream")
                }
            }
            handler.beginAttempt()
            do {
                var response = try await consume(bytes, with: &handler, endsAtDone: backend == .publicAPI, emit: emit)
                response.transport = .httpSSE
                // Let the body end on its own (the server closes the chunked body right after
                // `response.completed`) so the connection is reused for the next request.
                bytes.release(within: Wire.releaseSeconds)
                pipeline.logger(.info, "responses.completed", ["request_id": requestID, "response_id": response.id])
                return (response, head)
            } catch let error as TransportError {
                bytes.cancel()
                try Task.checkCancellation()
                switch error {
                case .network:
                    // The connection broke after the head: a truncated stream, retried only while
                    // nothing has been shown.
                    if !handler.hasShownOutput { throw BackendFailure.transient(.streamEndedBeforeCompletion) }
                    throw ChappieClientError.streamEndedBeforeCompletion
                default:
                    throw pipeline.failure(for: error, idleTimeout: policy.streamIdleTimeout, url: url).finalError
                }
            } catch {
                bytes.cancel()
                throw error
            }
        }
    }

    /// Whether a `Content-Type` value names an SSE stream (`text/event-stream`, any parameters).
    /// The public API may send a valid stream without one (SIWC.md §4.3): only a different one is refused.
    static func isEventStream(_ contentType: String) -> Bool {
        contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == Wire.eventStream
    }

    /// Reads SSE events until `response.completed`, a terminal failure, or the end of the body;
    /// with `endsAtDone`, a `[DONE]` before `response.completed` ends it as interrupted (the
    /// public API, SIWC.md §4.3; elsewhere it is skipped as the Codex CLI does).
    private func consume(_ bytes: HTTPByteStream, with handler: inout ResponseEventHandler, endsAtDone: Bool,
                         emit: @Sendable (ChappieStreamEvent) -> Void) async throws -> ChappieResponse {
        var parser = SSEParser()
        var done = false
        func handle(_ events: [SSEEvent]) throws -> ChappieResponse? {
            for event in events {
                if endsAtDone, event.data == Wire.done {
                    done = true
                    return nil
                }
                guard let decoded = ResponsesEvent.decode(event.data, fallbackType: event.type) else { continue }
                if case .turnState(let state) = decoded { turnState.record(state) }
                if let response = try handler.handle(decoded, emit: emit) { return response }
            }
            return nil
        }
        do {
            for try await chunk in bytes {
                if let response = try handle(try parser.feed(chunk)) { return response }
                if done { break }
            }
            if !done, let response = try handle(try parser.finish()) { return response }
        } catch let failure as SSEParser.Failure {
            if case .tooLarge(let bytes) = failure { throw ChappieClientError.invalidResponse("an event was larger than \(bytes) bytes") }
        }
        // A body cut short because the caller cancelled ends like a dropped connection: say which.
        try Task.checkCancellation()
        throw handler.pendingFailure ?? ChappieClientError.streamEndedBeforeCompletion
    }

    private enum Wire {
        static let input = "input"
        static let contentType = "content-type"
        static let eventStream = "text/event-stream"
        static let done = "[DONE]"
        /// Seconds a finished response's body may take to end before its connection is closed.
        static let releaseSeconds: TimeInterval = 5
    }
}

/// A response that failed or was cancelled after some of its text was shown: the text shown, and
/// the error the caller gets. The client keeps the text in its context, marked partial.
struct TurnInterruption: Error {
    /// The text shown before the failure.
    let shownText: String
    /// The failure (a ``ChappieClientError`` or `CancellationError`).
    let error: any Error
}
