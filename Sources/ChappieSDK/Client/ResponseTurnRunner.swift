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
            var accumulator = ResponseAccumulator()
            do {
                let response = try await consume(bytes, into: &accumulator, emit: emit)
                logger(.info, "responses.completed", ["request_id": requestID, "response_id": response.id])
                return (response, head)
            } catch let error as TransportError {
                guard case .network = error else { throw map(error) }
                // The connection broke after the head: retry only while nothing has been shown.
                if !accumulator.hasShownOutput, transientRetries < Self.maximumTransientRetries {
                    transientRetries += 1
                    continue
                }
                throw ChappieClientError.streamEndedBeforeCompletion
            }
        }
    }

    /// Reads SSE events until `response.completed`, a terminal failure, or the end of the body.
    private func consume(_ bytes: HTTPByteStream, into accumulator: inout ResponseAccumulator,
                         emit: @Sendable (ChappieStreamEvent) -> Void) async throws -> ChappieResponse {
        var parser = SSEParser()
        var pendingFailure: ChappieClientError?
        func handle(_ events: [SSEEvent]) throws -> ChappieResponse? {
            for event in events {
                guard let decoded = ResponsesEvent.decode(event.data, fallbackType: event.type) else { continue }
                switch decoded {
                case .created(let id, let model):
                    accumulator.created(id: id, model: model)
                case .outputTextDelta(let text, let itemID):
                    if let shown = accumulator.textDelta(text, itemID: itemID) { emit(.textDelta(shown)) }
                case .reasoningSummaryDelta(let text):
                    if let shown = accumulator.reasoningDelta(text) { emit(.reasoningSummaryDelta(shown)) }
                case .outputItemDone(let item):
                    if let shown = accumulator.itemDone(item) { emit(.textDelta(shown)) }
                case .completed(let id, let model, let usage):
                    return accumulator.response(id: id, model: model, usage: usage)
                case .failed(let error):
                    pendingFailure = ResponsesErrorMapping.failed(error)
                    throw pendingFailure!
                case .incomplete(let reason):
                    throw ChappieClientError.responseIncomplete(reason: reason)
                case .error(let status, let error):
                    if let status, status >= 400 { throw ResponsesErrorMapping.http(status: status, error: error, usage: nil) }
                    throw ResponsesErrorMapping.failed(error)
                case .rateLimits(let snapshot):
                    emit(.usageLimits(snapshot))
                case .ignored:
                    break
                }
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
        throw pendingFailure ?? ChappieClientError.streamEndedBeforeCompletion
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
