import Foundation

/// Every retry count, delay, timeout and byte cap of backend calls, in one place (DESIGN §4), made
/// from a ``ChappieConfiguration``. The pipeline, the SSE reader and the WebSocket coordinator
/// read them from here and nowhere else.
struct RequestPolicy: Sendable {
    /// Waits and retries after an HTTP 429 that is not a usage limit.
    var rateLimitBackoff: ChappieRateLimitBackoffPolicy
    /// Retries of 5xx answers and network failures before any output was shown (the Codex CLI's
    /// transport layer retries too, PROTOCOL §5.5).
    var transientRetries = 2
    /// Seconds before the first transient retry; doubles each time (200 ms × 2^(n−1), PROTOCOL §5.5).
    var transientRetryDelay: TimeInterval = 0.2
    /// WebSocket reconnects before falling back to HTTP/SSE.
    var webSocketReconnects: Int
    /// Seconds before the first WebSocket reconnect; doubles each time.
    var webSocketReconnectDelay: TimeInterval = 0.2
    /// Seconds a WebSocket handshake may take (PROTOCOL §6.1: 15 000 ms).
    var webSocketConnectTimeout: TimeInterval = 15
    /// Seconds one WebSocket send may take to hand a whole request to the network: enough for the
    /// largest frame (16 MiB) at about 2 Mbit/s, while a half-open socket (the peer stopped
    /// reading, the TCP send buffer is full) costs this long instead of the stream idle timeout.
    /// The socket is then closed and the request sent again on a new one.
    var webSocketSendTimeout: TimeInterval = 60
    /// Sends of one request over WebSocket that may run into ``webSocketSendTimeout`` before it
    /// goes over HTTP/SSE (or fails, without the fallback).
    var webSocketSendAttempts = 2
    /// Seconds without bytes between events of a stream (PROTOCOL §5.1: 300 000 ms).
    var streamIdleTimeout: TimeInterval
    /// Seconds without bytes for a JSON call (models, usage, compaction).
    var jsonIdleTimeout: TimeInterval = 60
    /// Seconds a whole JSON call (models, usage, compaction) may take, head and body, however
    /// slowly the bytes come.
    var jsonDeadline: TimeInterval = 120
    /// Seconds until a response head must arrive, on every call.
    var responseHeadTimeout: TimeInterval
    /// Bytes of a streamed reply accepted in total.
    var maximumStreamBytes = 256 << 20
    /// Bytes of a JSON answer accepted.
    var maximumJSONBytes = 16 << 20
    /// Bytes of an error body read for its message.
    var maximumErrorBodyBytes = 64 << 10

    /// The policy of `configuration`.
    init(configuration: ChappieConfiguration) {
        rateLimitBackoff = configuration.rateLimitBackoff
        webSocketReconnects = configuration.streamingTransportPolicy.maxWebSocketReconnectionAttempts
        streamIdleTimeout = configuration.streamIdleTimeout
        responseHeadTimeout = configuration.responseHeadTimeout
    }

    /// Seconds to wait before transient retry `attempt` (1-based).
    func transientDelay(forRetry attempt: Int) -> TimeInterval {
        transientRetryDelay * pow(2, Double(max(0, attempt - 1)))
    }

    /// Seconds to wait before WebSocket reconnect `attempt` (1-based).
    func reconnectDelay(forAttempt attempt: Int) -> TimeInterval {
        webSocketReconnectDelay * pow(2, Double(max(0, attempt - 1)))
    }
}
