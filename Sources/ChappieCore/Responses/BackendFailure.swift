import ChappieTransport
import Foundation

/// What a failed backend answer means for the caller, decided in one place from the error's
/// status and code wherever the backend put them: an HTTP body, the `x-error-json` header, a
/// WebSocket `error` event, or `response.failed` (PROTOCOL §2.4, §5.4, §5.5, §6.2, §7.3). The
/// ``RequestPipeline`` acts on it: refresh and retry once, wait and retry, or fail.
enum BackendFailure: Error, Sendable {
    /// HTTP 401: refresh the credential once and retry with a new header. The code, when the
    /// backend gave one (`token_expired`, …), goes into the final error if the retry fails too;
    /// `error`, when given, is that final error instead (the public API's own).
    case unauthorized(code: String?, error: ChappieClientError? = nil)
    /// A 429 that is not a usage limit: wait (the server's `Retry-After`, capped, or the back-off
    /// policy) and retry; `error` is what the caller gets once retries run out.
    case rateLimited(retryAfter: TimeInterval?, error: ChappieClientError)
    /// A 5xx (but an overload) or a connection that failed before any output: retry a bounded
    /// number of times; `error` is what the caller gets once retries run out.
    case transient(ChappieClientError)
    /// The WebSocket's 60-minute limit (`websocket_connection_limit_reached`, status 400): open
    /// a new socket and send the full request, once, while nothing was shown; otherwise
    /// ``ChappieClientError/webSocketConnectionLimitReached``.
    case connectionLimitReached
    /// The server no longer has the response an incremental WebSocket request chained onto
    /// (`previous_response_not_found`, status 400): send the request again in full, once; `error`
    /// is what the caller gets otherwise.
    case previousResponseNotFound(ChappieClientError)
    /// Not worth retrying.
    case terminal(ChappieClientError)

    /// Classifies an answer with `status`, its parsed error body and its response headers
    /// (lower-cased names; the rate-limit snapshot of a usage-limit error comes from them).
    static func classify(status: Int, error: ServerErrorBody, headers: HTTPFields = [:], now: Date = Date()) -> BackendFailure {
        let code = error.code?.lowercased()
        switch status {
        case 401:
            return .unauthorized(code: code)
        case 429:
            let usage = RateLimitHeaders.snapshot(from: headers, now: now)
            if ResponsesErrorMapping.isUsageLimit(error) {
                return .terminal(ResponsesErrorMapping.http(status: status, error: error, usage: usage))
            }
            return .rateLimited(retryAfter: retryAfter(headers[Wire.retryAfter]), error: .httpError(status, error.message))
        case 400 where code == Wire.connectionLimitReached:
            return .connectionLimitReached
        case 400 where code == Wire.previousResponseNotFound:
            return .previousResponseNotFound(ResponsesErrorMapping.http(status: status, error: error, usage: nil))
        case 300..<400:
            return .terminal(.httpError(status, "the server answered with a redirect, which Chappie never follows"))
        case 503 where code == Wire.serverIsOverloaded || code == Wire.slowDown:
            return .terminal(.serverOverloaded(error.message))
        case 500..<600:
            return .transient(.httpError(status, error.message))
        default:
            return .terminal(ResponsesErrorMapping.http(status: status, error: error, usage: nil))
        }
    }

    /// A `Retry-After` value in delta-seconds; only finite, non-negative numbers count.
    static func retryAfter(_ value: String?) -> TimeInterval? {
        guard let seconds = value.flatMap({ TimeInterval($0.trimmingCharacters(in: .whitespaces)) }), seconds.isFinite, seconds >= 0 else {
            return nil
        }
        return seconds
    }

    /// The error a caller gets for this failure when it is not (or no longer) retried.
    var finalError: ChappieClientError {
        switch self {
        case .unauthorized(_, let error?):
            error
        case .unauthorized(let code, nil):
            .reauthenticationRequired("the backend rejected the renewed session (HTTP 401\(code.map { ", \($0)" } ?? ""))")
        case .rateLimited(_, let error), .transient(let error), .terminal(let error), .previousResponseNotFound(let error): error
        case .connectionLimitReached: .webSocketConnectionLimitReached
        }
    }

    private enum Wire {
        static let retryAfter = "retry-after"
        static let connectionLimitReached = "websocket_connection_limit_reached"
        static let previousResponseNotFound = "previous_response_not_found"
        static let serverIsOverloaded = "server_is_overloaded"
        static let slowDown = "slow_down"
    }
}
