import Foundation

/// Sends one Responses request over HTTP/SSE and streams its events, with the recovery rules of
/// DESIGN §3–4: a 401 refreshes and retries once with a freshly built header; a 429 waits per the
/// ``ChappieRateLimitBackoffPolicy`` (a usage-limit 429 is surfaced at once); 5xx and network
/// failures are retried a bounded number of times while nothing has been shown.
struct ResponseTurnRunner: Sendable {
    let transport: any HTTPTransport
    let credentials: CredentialManager
    let endpoints: ChappieEndpoints
    let originator: String
    let idleTimeout: TimeInterval
    let backoff: ChappieRateLimitBackoffPolicy
    let time: ChappieTimeSource
    let logger: Logger
    let policy: ChappieStreamingTransportPolicy
    let streaming: StreamingTransportState
    let webSockets: any WebSocketConnector

    /// Retries of 5xx and network failures before any output was shown.
    static let maximumTransientRetries = 2
    /// Base delay, in seconds, before a transient retry; doubles each time.
    static let transientRetryDelay: TimeInterval = 0.2

    /// Runs the request and returns the completed response; `emit` receives deltas and usage as
    /// they arrive. Throws ``ChappieClientError`` or `CancellationError`.
    func run(body: ChappieJSONValue, sessionID: String, emit: @Sendable (ChappieStreamEvent) -> Void) async throws -> ChappieResponse {
        try await runReportingHead(body: body, sessionID: sessionID, emit: emit).response
    }

    /// Like ``run(body:sessionID:emit:)``, also returning the successful response's head (for
    /// `x-models-etag` and similar headers).
    func runReportingHead(body: ChappieJSONValue, sessionID: String, emit: @Sendable (ChappieStreamEvent) -> Void) async throws
        -> (response: ChappieResponse, head: HTTPResponseHead) {
        // Tokens go only where ChappieEndpoints allows (https, or http to loopback), WebSocket included.
        if let violation = endpoints.violation { throw ChappieClientError.insecureEndpoint(violation) }
        var handler = ResponseEventHandler()
        if await streaming.shouldTryWebSocket(policy: policy), body.jsonString.utf8.count < WebSocketLimits.maximumFrameBytes - 1024 {
            let coordinator = WebSocketStreamCoordinator(runner: self)
            switch try await coordinator.run(body: body, sessionID: sessionID, handler: &handler, emit: emit) {
            case .completed(let response):
                return (response, HTTPResponseHead(status: 101, headers: [:]))
            case .fallBack(let sticky):
                if sticky { await streaming.disableWebSocket() }
                logger(.warning, "websocket.fallback", ["sticky": "\(sticky)"])
            }
        }
        return try await runHTTP(body: body, sessionID: sessionID, handler: &handler, emit: emit)
    }

    /// Sends the request over HTTP/SSE with the retry rules above.
    private func runHTTP(body: ChappieJSONValue, sessionID: String, handler: inout ResponseEventHandler,
                         emit: @Sendable (ChappieStreamEvent) -> Void) async throws -> (response: ChappieResponse, head: HTTPResponseHead) {
        var authorization = try await credentials.authorization()
        var retriedUnauthorized = false
        var rateLimitRetries = 0
        var transientRetries = 0
        let bodyData = Data(body.jsonString.utf8)
        let requestID = UUID().uuidString.lowercased()
        var attempt = 0
        while true {
            try Task.checkCancellation()
            attempt += 1
            logger(.debug, "responses.request", ["request_id": requestID, "attempt": "\(attempt)", "path": endpoints.responses.path])
            let request = HTTPRequest(method: "POST", url: endpoints.responses,
                                      headers: authorization.headers + standardHeaders(sessionID: sessionID),
                                      body: bodyData, idleTimeout: idleTimeout)
            let head: HTTPResponseHead
            let bytes: HTTPByteStream
            do {
                (head, bytes) = try await transport.stream(request)
            } catch let error as TransportError {
                try Task.checkCancellation()  // a cancelled request is the caller's cancellation, not a network error
                if case .network = error, transientRetries < Self.maximumTransientRetries {
                    transientRetries += 1
                    try await time.sleep(.seconds(interval: Self.transientRetryDelay * pow(2, Double(transientRetries - 1))))
                    continue
                }
                throw map(error)
            }
            logger(head.status < 400 ? .debug : .warning, "responses.head", ["request_id": requestID, "status": "\(head.status)"])
            if head.status == 401 && !retriedUnauthorized {
                retriedUnauthorized = true
                authorization = try await credentials.recoverFromUnauthorized(rejected: authorization)
                continue
            }
            let usage = RateLimitHeaders.snapshot(from: head.headers, now: time.now())
            guard (200..<300).contains(head.status) else {
                let data = (try? await collect(bytes, maximumBytes: 64 << 10)) ?? Data()
                let error = ServerErrorBody(data: data, status: head.status)
                if head.status == 429 && !ResponsesErrorMapping.isUsageLimit(error) && rateLimitRetries < backoff.maxRetries {
                    rateLimitRetries += 1
                    let retryAfter = head.header("retry-after").flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) }
                    try await time.sleep(.seconds(interval: backoff.delay(forRetry: rateLimitRetries, retryAfter: retryAfter)))
                    continue
                }
                if head.status >= 500 && !(head.status == 503 && ["server_is_overloaded", "slow_down"].contains(error.code ?? ""))
                    && transientRetries < Self.maximumTransientRetries {
                    transientRetries += 1
                    try await time.sleep(.seconds(interval: Self.transientRetryDelay * pow(2, Double(transientRetries - 1))))
                    continue
                }
                if head.status == 401 {
                    throw ChappieClientError.reauthenticationRequired("the backend rejected the renewed session (HTTP 401)")
                }
                throw ResponsesErrorMapping.http(status: head.status, error: error, usage: usage)
            }
            if let usage { emit(.usageLimits(usage)) }
            handler.beginAttempt()
            do {
                let response = try await consume(bytes, with: &handler, emit: emit)
                logger(.info, "responses.completed", ["request_id": requestID, "response_id": response.id])
                return (response, head)
            } catch let error as TransportError {
                try Task.checkCancellation()
                guard case .network = error else { throw map(error) }
                // The connection broke after the head: retry only while nothing has been shown.
                if !handler.hasShownOutput, transientRetries < Self.maximumTransientRetries {
                    transientRetries += 1
                    continue
                }
                throw ChappieClientError.streamEndedBeforeCompletion
            }
        }
    }

    /// Reads SSE events until `response.completed`, a terminal failure, or the end of the body.
    private func consume(_ bytes: HTTPByteStream, with handler: inout ResponseEventHandler,
                         emit: @Sendable (ChappieStreamEvent) -> Void) async throws -> ChappieResponse {
        var parser = SSEParser()
        func handle(_ events: [SSEEvent]) throws -> ChappieResponse? {
            for event in events {
                guard let decoded = ResponsesEvent.decode(event.data, fallbackType: event.type) else { continue }
                if let response = try handler.handle(decoded, emit: emit) { return response }
            }
            return nil
        }
        do {
            for try await chunk in bytes {
                if let response = try handle(try parser.feed(chunk)) { return response }
            }
            if let response = try handle(try parser.finish()) { return response }
        } catch let failure as SSEParser.Failure {
            if case .tooLarge(let bytes) = failure { throw ChappieClientError.invalidResponse("an event was larger than \(bytes) bytes") }
        }
        // A body cut short because the caller cancelled ends like a dropped connection: say which.
        try Task.checkCancellation()
        throw handler.pendingFailure ?? ChappieClientError.streamEndedBeforeCompletion
    }

    private func collect(_ bytes: HTTPByteStream, maximumBytes: Int) async throws -> Data {
        var data = Data()
        for try await chunk in bytes {
            data.append(chunk.prefix(maximumBytes - data.count))
            if data.count >= maximumBytes { break }
        }
        return data
    }

    private func map(_ error: TransportError) -> ChappieClientError {
        switch error {
        case .network(let message, let reached): .network(message, mayHaveReachedServer: reached)
        case .idleTimeout: .idleTimeout(idleTimeout)
        case .responseTooLarge(let bytes): .invalidResponse("the response was larger than \(bytes) bytes")
        case .unsupported(let what): .network(what, mayHaveReachedServer: false)
        }
    }

    /// Headers every backend request carries besides authorization (PROTOCOL §4.2).
    func standardHeaders(sessionID: String, accept: String = "text/event-stream") -> [(name: String, value: String)] {
        [
            ("originator", originator),
            ("User-Agent", ChappieVersion.userAgent(originator: originator)),
            ("session_id", sessionID),
            ("x-client-request-id", sessionID),
            ("Accept", accept),
            ("Content-Type", "application/json"),
        ]
    }
}
