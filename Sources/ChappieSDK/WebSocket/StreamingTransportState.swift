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
