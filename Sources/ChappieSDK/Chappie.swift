/// Entry points: build an auth session and a client from one configuration.
public enum Chappie {
    /// A sign-in session for `configuration`.
    @MainActor
    public static func authSession(configuration: ChappieConfiguration = ChappieConfiguration()) -> ChappieAuthSession {
        ChappieAuthSession(configuration: configuration)
    }

    /// A client for `configuration`. `harness`, `rateLimitBackoff` and `streamingTransportPolicy`
    /// override the configuration's values when given.
    public static func client(
        configuration: ChappieConfiguration = ChappieConfiguration(),
        harness: ChappieHarness? = nil,
        rateLimitBackoff: ChappieRateLimitBackoffPolicy? = nil,
        streamingTransportPolicy: ChappieStreamingTransportPolicy? = nil
    ) -> ChappieClient {
        var configuration = configuration
        if let harness { configuration.harness = harness }
        if let rateLimitBackoff { configuration.rateLimitBackoff = rateLimitBackoff }
        if let streamingTransportPolicy { configuration.streamingTransportPolicy = streamingTransportPolicy }
        return ChappieClient(configuration: configuration)
    }
}
