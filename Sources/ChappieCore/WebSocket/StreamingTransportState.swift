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

    /// The HTTP status the warm-up's WebSocket upgrade was refused with, until the next request
    /// takes it (``takeWarmUpRefusal()``): that handshake counts as the request's first, so a
    /// refused upgrade is not tried more often than the reconnect policy allows.
    private var warmUpRefusal: Int?

    /// Notes that the warm-up's upgrade was refused with `status`.
    func noteWarmUpRefusal(status: Int) { warmUpRefusal = status }

    /// The status the warm-up's upgrade was refused with, once; nil when it was not refused.
    func takeWarmUpRefusal() -> Int? {
        defer { warmUpRefusal = nil }
        return warmUpRefusal
    }

    /// Optional request fields the public API refused (`error.param` of an unsupported
    /// capability): left out of this client's later requests, so a refused body is never sent
    /// again as it was (SIWC.md §6.3).
    private(set) var refusedFields: Set<String> = []

    /// Leaves the top-level field `param` names out of later requests, when it is optional.
    func refuse(param: String) {
        let field = PublicAPIRequestBody.topLevelField(of: param)
        if PublicAPIRequestBody.optionalFields.contains(field) { refusedFields.insert(field) }
    }
}
