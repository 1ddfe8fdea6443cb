/// Which transport streams responses: the client's WebSocket first (one socket kept open across
/// turns), HTTP/SSE as the fallback.
///
/// Where WebSocket is unavailable (on Linux, without the system OpenSSL 3 that Chappie's own
/// WebSocket client needs) the client uses HTTP/SSE at once, whatever this policy says.
public struct ChappieStreamingTransportPolicy: Sendable, Hashable, Codable {
    /// Try a WebSocket before HTTP/SSE.
    public var prefersWebSocket: Bool
    /// Reconnects of one request after its WebSocket drops before any text was shown, or its
    /// upgrade is refused with a `5xx`, `408` or `429`, before giving up on it (a refused warm-up
    /// counts as the first request's first try). A drop after text was shown is never retried:
    /// it ends the stream with ``ChappieClientError/streamEndedBeforeCompletion``.
    public var maxWebSocketReconnectionAttempts: Int
    /// After WebSocket keeps failing, use HTTP/SSE for the rest of the session. A WebSocket that
    /// is not open within 15 seconds (a server that takes the connection and never answers the
    /// upgrade) is not retried: the turn goes over HTTP/SSE at once, or, without the fallback,
    /// fails with ``ChappieClientError/network(_:mayHaveReachedServer:)``. A request that two
    /// sockets in a row did not take within 60 seconds (a connection whose other end stopped
    /// reading) goes over HTTP/SSE on its own, or fails the same way; later ones try the
    /// WebSocket again.
    public var fallsBackToHTTPSSE: Bool
    /// Open and warm the WebSocket at the start of the client's first turn, before its request
    /// (a `response.create` with `"generate": false` and no input), so the turn streams on a
    /// connection that is already up and goes out incremental. Creating a client sends nothing;
    /// call ``ChappieClient/prewarm()`` to warm the socket earlier (it does so whatever this
    /// flag says). Only with `prefersWebSocket`.
    public var prewarmsWebSocket: Bool

    /// Creates a policy.
    public init(prefersWebSocket: Bool = true, maxWebSocketReconnectionAttempts: Int = 5, fallsBackToHTTPSSE: Bool = true,
                prewarmsWebSocket: Bool = true) {
        self.prefersWebSocket = prefersWebSocket
        self.maxWebSocketReconnectionAttempts = max(0, maxWebSocketReconnectionAttempts)
        self.fallsBackToHTTPSSE = fallsBackToHTTPSSE
        self.prewarmsWebSocket = prewarmsWebSocket
    }

    private enum CodingKeys: String, CodingKey {
        case prefersWebSocket, maxWebSocketReconnectionAttempts, fallsBackToHTTPSSE, prewarmsWebSocket
    }

    /// Decodes a policy; `prewarmsWebSocket` may be absent (policies saved before it existed: on).
    /// Throws `DecodingError` when another field is missing or malformed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(prefersWebSocket: try container.decode(Bool.self, forKey: .prefersWebSocket),
                  maxWebSocketReconnectionAttempts: try container.decode(Int.self, forKey: .maxWebSocketReconnectionAttempts),
                  fallsBackToHTTPSSE: try container.decode(Bool.self, forKey: .fallsBackToHTTPSSE),
                  prewarmsWebSocket: try container.decodeIfPresent(Bool.self, forKey: .prewarmsWebSocket) ?? true)
    }

    /// WebSocket first, five reconnects, then HTTP/SSE.
    public static let `default` = ChappieStreamingTransportPolicy()
    /// HTTP/SSE only.
    public static let httpSSEOnly = ChappieStreamingTransportPolicy(
        prefersWebSocket: false, maxWebSocketReconnectionAttempts: 0, fallsBackToHTTPSSE: true)
}
