import ChappieTransport
import Foundation

/// The one path every backend call takes (DESIGN §4): authorize with the slot's credential owner,
/// send on the client's transport, classify a failure (``BackendFailure``), and then refresh once
/// after a 401, wait and retry after a 429, retry a bounded number of times after a 5xx or a
/// network failure, or fail with a typed ``ChappieClientError``. Responses over HTTP/SSE, models,
/// usage, compaction and WebSocket handshakes all go through ``perform(_:_:)``; the counts and
/// delays come from one ``RequestPolicy``.
struct RequestPipeline: Sendable {
    /// Sends the requests (one `URLSession` per client).
    let transport: any HTTPTransport
    /// The slot's credential owner.
    let credentials: CredentialManager
    /// What a refresh started by this pipeline uses (transport, clock, logger).
    let credentialContext: CredentialContext
    /// Issuer and backend URLs.
    let endpoints: ChappieEndpoints
    /// The `originator` header value.
    let originator: String
    /// Retries, delays, timeouts and caps.
    let policy: RequestPolicy
    /// Clock for back-off waits.
    let time: ChappieTimeSource
    /// Where diagnostics go (constant messages, values as metadata, never a token).
    let logger: Logger

    /// The pipeline of a client built from `configuration`.
    init(configuration: ChappieConfiguration, transport: any HTTPTransport, credentials: CredentialManager, time: ChappieTimeSource) {
        self.transport = transport
        self.credentials = credentials
        credentialContext = CredentialContext(configuration: configuration, transport: transport, time: time)
        endpoints = configuration.endpoints
        originator = configuration.originator
        policy = RequestPolicy(configuration: configuration)
        self.time = time
        logger = configuration.logger
    }

    /// Runs `attempt` with a valid authorization until it succeeds or fails for good. `attempt`
    /// throws a ``BackendFailure`` to have it handled here (a 401 refreshes once, a 429 waits per
    /// the rate-limit policy, a transient failure retries per the transient policy; past the
    /// budget, or for a terminal failure, the failure's ``BackendFailure/finalError`` is thrown);
    /// any other error ends the call as it is. Throws ``ChappieClientError`` (`.insecureEndpoint`
    /// before anything is sent to an endpoint ``ChappieEndpoints`` does not allow) or
    /// `CancellationError`.
    func perform<Success: Sendable>(_ call: String, _ attempt: (Authorization) async throws -> Success) async throws -> Success {
        // Tokens go only where ChappieEndpoints allows (https, or http to a loopback address),
        // for every call this pipeline makes, WebSocket handshakes included.
        if let violation = endpoints.violation { throw ChappieClientError.insecureEndpoint(violation) }
        var authorization = try await credentials.authorization(credentialContext)
        var refreshed = false
        var rateLimitRetries = 0
        var transientRetries = 0
        while true {
            try Task.checkCancellation()
            do {
                return try await attempt(authorization)
            } catch let failure as BackendFailure {
                try Task.checkCancellation()
                switch failure {
                case .unauthorized(let code?, _) where !refreshed && Wire.revokedTokenCodes.contains(code):
                    // The session was ended on the server: re-read the store, never spend the refresh token.
                    refreshed = true
                    logger(.info, "request.unauthorized", ["call": call, "code": code])
                    authorization = try await credentials.recoverFromRevokedToken(rejected: authorization, code: code, credentialContext)
                case .unauthorized where !refreshed:
                    refreshed = true
                    logger(.info, "request.unauthorized", ["call": call])
                    authorization = try await credentials.recoverFromUnauthorized(rejected: authorization, credentialContext)
                case .rateLimited(let retryAfter, _) where rateLimitRetries < policy.rateLimitBackoff.maxRetries:
                    rateLimitRetries += 1
                    let delay = policy.rateLimitBackoff.delay(forRetry: rateLimitRetries, retryAfter: retryAfter)
                    logger(.warning, "request.rate_limited", ["call": call, "retry": "\(rateLimitRetries)", "delay_seconds": "\(delay)"])
                    try await time.sleep(.seconds(interval: delay))
                case .transient where transientRetries < policy.transientRetries:
                    transientRetries += 1
                    logger(.warning, "request.retrying", ["call": call, "retry": "\(transientRetries)"])
                    try await time.sleep(.seconds(interval: policy.transientDelay(forRetry: transientRetries)))
                default:
                    throw failure.finalError
                }
            }
        }
    }

    /// Sends `request` once: returns the head and body of a 2xx answer; anything else is read (up
    /// to the error-body cap) and thrown as a ``BackendFailure``, as is a transport failure.
    func open(_ request: HTTPRequest) async throws -> (HTTPResponseHead, HTTPByteStream) {
        let head: HTTPResponseHead
        let body: HTTPByteStream
        do {
            (head, body) = try await transport.stream(request)
        } catch let error as TransportError {
            try Task.checkCancellation()  // a cancelled request is the caller's cancellation, not a network error
            throw failure(for: error, idleTimeout: request.idleTimeout, url: request.url)
        }
        guard (200..<300).contains(head.status) else {
            let data = await body.prefix(maximumBytes: policy.maximumErrorBodyBytes)
            let error = ServerErrorBody(data: data, status: head.status, headers: head.headers)
            guard InferenceBackend.destination(of: request.url, in: endpoints) == .publicAPI else {
                throw BackendFailure.classify(status: head.status, error: error, headers: head.headers, now: time.now())
            }
            // The public API's own codes and actions; its request id is kept, its message never.
            let requestID = PublicAPIErrorMapping.requestID(in: head.headers)
            logger(.warning, "request.failed", ["status": "\(head.status)", "code": error.code ?? "none", "request_id": requestID ?? "none"])
            throw PublicAPIErrorMapping.classify(status: head.status, error: error, headers: head.headers, requestID: requestID)
        }
        return (head, body)
    }

    /// The backend the stored credential's requests go to, from its sign-in route (DESIGN §10).
    /// Throws ``ChappieClientError/missingCredential`` or a credential-store error.
    func backend() async throws -> InferenceBackend {
        InferenceBackend(route: try await credentials.route())
    }

    /// An authorized JSON call through ``perform(_:_:)``: returns the body and head of its 2xx
    /// answer. Throws ``ChappieClientError`` or `CancellationError`.
    func sendJSON(method: HTTPMethod, url: URL, body: Data?, sessionID: String) async throws -> (body: Data, head: HTTPResponseHead) {
        let backend = InferenceBackend.destination(of: url, in: endpoints) ?? .codex
        return try await perform(url.lastPathComponent) { authorization in
            let request = HTTPRequest(method: method, url: url,
                                      headers: try authorization.headers(to: url, endpoints: endpoints)
                                          + standardHeaders(for: backend, sessionID: sessionID, accept: Wire.json),
                                      body: body, idleTimeout: policy.jsonIdleTimeout, headTimeout: policy.responseHeadTimeout,
                                      maximumBodyBytes: policy.maximumJSONBytes)
            do {
                return try await HTTPDeadline.run(policy.jsonDeadline) {
                    let (head, stream) = try await open(request)
                    return (try await stream.collect(maximumBytes: policy.maximumJSONBytes), head)
                }
            } catch let error as TransportError {
                try Task.checkCancellation()
                throw failure(for: error, idleTimeout: request.idleTimeout, url: request.url)
            }
        }
    }

    /// The failure a transport error stands for: connection trouble is transient; the rest end
    /// the call (`idleTimeout`: the request's idle timeout, seconds), a missing response head too,
    /// so a server that never answers costs one head timeout (``TransportError/isRetryable``).
    /// A network message names `url`, the address that failed (without its query).
    func failure(for error: TransportError, idleTimeout: TimeInterval, url: URL) -> BackendFailure {
        let message = error.message(at: url)
        return switch error {
        case .network(_, let reached): .transient(.network(message, mayHaveReachedServer: reached))
        case .headTimeout: .terminal(.network(message, mayHaveReachedServer: true))
        case .idleTimeout: .terminal(.idleTimeout(idleTimeout))
        case .responseTooLarge, .inflatedTooLarge: .terminal(.invalidResponse(message))
        case .unsupported: .terminal(.network(message, mayHaveReachedServer: false))
        case .invalidHeaderField: .terminal(.invalidResponse(message))
        // Not retried: a server that trickles its answer would hold every retry as long.
        case .deadlineExceeded: .terminal(.network(message, mayHaveReachedServer: true))
        }
    }

    /// Headers every request to `backend` carries besides authorization: on the ChatGPT/Codex
    /// backend the Codex CLI's (PROTOCOL §4.2; `session-id` and `thread-id` hyphenated, as Codex
    /// 0.163.0 sends them, so proxies that drop underscore headers keep them); on the public API only `User-Agent`, `Accept` and
    /// `Content-Type` (SIWC.md §4.2: no originator, session or account header is documented there).
    func standardHeaders(for backend: InferenceBackend = .codex, sessionID: String, accept: String = Wire.eventStream)
        -> HTTPFields {
        switch backend {
        case .codex:
            [
                "originator": originator,
                "User-Agent": ChappieVersion.userAgent(originator: originator),
                Wire.sessionID: sessionID,
                Wire.threadID: sessionID,
                "x-client-request-id": sessionID,
                "Accept": accept,
                "Content-Type": Wire.json,
            ]
        case .publicAPI:
            [
                "User-Agent": ChappieVersion.userAgent(originator: Wire.sdkProduct),
                "Accept": accept,
                "Content-Type": Wire.json,
            ]
        }
    }

    private enum Wire {
        /// `x-error-json` codes of a 401 for an access token the sign-in server ended (PROTOCOL §2.4).
        static let revokedTokenCodes: Set<String> = ["token_revoked", "token_invalidated"]
        static let sessionID = "session-id"
        static let threadID = "thread-id"
        static let json = "application/json"
        static let eventStream = "text/event-stream"
        /// The product name in the public API's `User-Agent` (no app originator is sent there).
        static let sdkProduct = "chappie-sdk"
    }
}
