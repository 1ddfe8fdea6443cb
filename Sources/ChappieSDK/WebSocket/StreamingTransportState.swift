/// What a client remembers about its streaming transport for the rest of its session: once
/// WebSocket is unavailable or kept failing, HTTP/SSE is used from then on (sticky fallback).
actor StreamingTransportState {
    /// True once WebSocket was given up for this session.
    private(set) var webSocketDisabled = false

    /// Whether the next request should try a WebSocket first under `policy`.
    func shouldTryWebSocket(policy: ChappieStreamingTransportPolicy) -> Bool {
        policy.prefersWebSocket && !webSocketDisabled
    }

    /// Uses HTTP/SSE for the rest of the session.
    func disableWebSocket() { webSocketDisabled = true }
}
