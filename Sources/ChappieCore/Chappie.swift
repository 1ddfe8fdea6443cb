/// Entry points: build an auth session and a client from one configuration.
public enum Chappie {
    /// A sign-in session for `configuration`.
    @MainActor
    public static func authSession(configuration: ChappieConfiguration = ChappieConfiguration()) -> ChappieAuthSession {
        ChappieAuthSession(configuration: configuration)
    }

    /// A client for `configuration`. `harness`, `rateLimitBackoff` and `streamingTransportPolicy`
    /// override the configuration's values when given; `tools` are the host tools the model may
    /// call, and `toolApprovalHandler` decides on those with the `.ask` policy.
    public static func client(
        configuration: ChappieConfiguration = ChappieConfiguration(),
        harness: ChappieHarness? = nil,
        tools: [ChappieHostTool] = [],
        toolApprovalHandler: ChappieToolApprovalHandler? = nil,
        rateLimitBackoff: ChappieRateLimitBackoffPolicy? = nil,
        streamingTransportPolicy: ChappieStreamingTransportPolicy? = nil
    ) -> ChappieClient {
        var configuration = configuration
        if let harness { configuration.harness = harness }
        if let rateLimitBackoff { configuration.rateLimitBackoff = rateLimitBackoff }
        if let streamingTransportPolicy { configuration.streamingTransportPolicy = streamingTransportPolicy }
        return ChappieClient(configuration: configuration, tools: tools, toolApprovalHandler: toolApprovalHandler)
    }
}
