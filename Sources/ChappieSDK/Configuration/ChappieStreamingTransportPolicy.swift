/// Which transport streams responses: a WebSocket per request first, HTTP/SSE as the fallback.
///
/// Where WebSocket is unavailable (Linux, whose libcurl has no WebSocket support) the client uses
/// HTTP/SSE at once, whatever this policy says.
public struct ChappieStreamingTransportPolicy: Sendable, Hashable, Codable {
    /// Try a WebSocket before HTTP/SSE.
    public var prefersWebSocket: Bool
    /// Reconnects after a WebSocket drops mid-stream before giving up on it.
    public var maxWebSocketReconnectionAttempts: Int
    /// After WebSocket keeps failing, use HTTP/SSE for the rest of the session.
    public var fallsBackToHTTPSSE: Bool

    /// Creates a policy.
    public init(prefersWebSocket: Bool = true, maxWebSocketReconnectionAttempts: Int = 5, fallsBackToHTTPSSE: Bool = true) {
        self.prefersWebSocket = prefersWebSocket
        self.maxWebSocketReconnectionAttempts = max(0, maxWebSocketReconnectionAttempts)
        self.fallsBackToHTTPSSE = fallsBackToHTTPSSE
    }

    /// WebSocket first, five reconnects, then HTTP/SSE.
    public static let `default` = ChappieStreamingTransportPolicy()
    /// HTTP/SSE only.
    public static let httpSSEOnly = ChappieStreamingTransportPolicy(
        prefersWebSocket: false, maxWebSocketReconnectionAttempts: 0, fallsBackToHTTPSSE: true)
}
