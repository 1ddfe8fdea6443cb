import Foundation

/// How the client waits and retries after an HTTP 429 that is not a usage limit.
///
/// Delay before retry *n* (from 1) is `initialDelay × 2^(n−1)`, capped at `maximumDelay`; when
/// `respectsRetryAfterHeader` is true, a `Retry-After` header (delta-seconds) replaces the computed
/// delay and is capped the same way. A usage-limit 429 is never retried.
public struct ChappieRateLimitBackoffPolicy: Sendable, Hashable, Codable {
    /// Retries after the first 429; 0 disables retrying; negative values are clamped to 0.
    public var maxRetries: Int
    /// First wait, in seconds; doubles on each retry.
    public var initialDelay: TimeInterval
    /// Cap, in seconds, for the computed delay and for `Retry-After`.
    public var maximumDelay: TimeInterval
    /// Use the server's `Retry-After` (capped) instead of the computed delay.
    public var respectsRetryAfterHeader: Bool

    /// Creates a policy; `maxRetries` below 0 is treated as 0.
    public init(
        maxRetries: Int = 2,
        initialDelay: TimeInterval = 1,
        maximumDelay: TimeInterval = 30,
        respectsRetryAfterHeader: Bool = true
    ) {
        self.maxRetries = max(0, maxRetries)
        self.initialDelay = max(0, initialDelay)
        self.maximumDelay = max(0, maximumDelay)
        self.respectsRetryAfterHeader = respectsRetryAfterHeader
    }

    /// Two retries, 1 s doubling, 30 s cap, `Retry-After` honoured.
    public static let `default` = ChappieRateLimitBackoffPolicy()
    /// Surfaces the first 429 at once.
    public static let disabled = ChappieRateLimitBackoffPolicy(maxRetries: 0)

    /// Seconds to wait before retry `attempt` (1-based), given an optional `Retry-After` value in seconds.
    public func delay(forRetry attempt: Int, retryAfter: TimeInterval?) -> TimeInterval {
        if respectsRetryAfterHeader, let retryAfter, retryAfter.isFinite, retryAfter >= 0 {
            return min(retryAfter, maximumDelay)
        }
        let exponent = Double(max(0, attempt - 1))
        return min(initialDelay * pow(2, exponent), maximumDelay)
    }

    /// The delta-seconds of a `Retry-After` header value (RFC 9110 §10.2.3), or nil when it is
    /// absent or not a finite, non-negative number (`nan`, `inf`, `-1`, an HTTP date).
    static func retryAfterSeconds(_ value: String?) -> TimeInterval? {
        guard let value, let seconds = TimeInterval(value.trimmingCharacters(in: .whitespaces)),
              seconds.isFinite, seconds >= 0 else { return nil }
        return seconds
    }
}
