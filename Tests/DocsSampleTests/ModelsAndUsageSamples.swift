import ChappieSDK
import ChappieSDKTesting
import Testing

// Samples of https://docs.chappiesdk.com/concepts/models-and-usage and
// https://docs.chappiesdk.com/configuration/rate-limit-backoff, as published. Lines ending in
// `// +test` are not in the docs; lines with `// docs:` differ from them, saying why.

/// "Default Model".
func modelsDefaultModel() -> String {
    let defaultSlug = ChappieClient.defaultModel  // "gpt-5.5"
    return defaultSlug  // +test
}

/// "Listing Available Models".
func modelsListing(client: ChappieClient) async throws {
    let models = try await client.models()
    for model in models {
        print(model.displayName, model.slug)
    }
}

/// "Filtering Models".
func modelsFiltering(client: ChappieClient) async throws -> [ChappieModel] {
    let textModels = try await client.models(
        filter: ChappieModelFilter(
            supportedInAPI: true,
            inputModality: "text"
        )
    )
    return textModels  // +test
}

/// "Selecting a Model" (the page is cut after `await c`; the prose names `selectModel(_:)`).
func modelsSelecting(client: ChappieClient, slug: String) async {
    await client.selectModel(slug)  // docs: reconstructed from the prose
}

/// Rate-limit backoff, "Customising backoff" (the page is cut inside the last argument).
func rateLimitCustomBackoff() -> ChappieClient {
    let client = Chappie.client(
        rateLimitBackoff: ChappieRateLimitBackoffPolicy(
            maxRetries: 3,
            initialDelay: 1,
            maximumDelay: 15,
            respectsRetryAfterHeader: true  // docs: cut off after `respec`; true is the default
        )
    )
    return client  // +test
}

@Suite("Published docs: Models and usage")
struct ModelsAndUsageSampleTests {
    @Test("the default model is gpt-5.5")
    func defaultModel() {
        #expect(modelsDefaultModel() == "gpt-5.5")
        #expect(ChappieConfiguration().model == "gpt-5.5")
    }

    @Test("models() lists the live catalog best first; the filter keeps API text models")
    func listingAndFiltering() async throws {
        try await DocsEnvironment.run { docs in
            let client = Chappie.client()
            try await modelsListing(client: client)
            let models = try await client.models()
            #expect(!models.isEmpty)
            #expect(models.map(\.priority) == models.map(\.priority).sorted())
            #expect(docs.output.text == models.map { "\($0.displayName) \($0.slug)\n" }.joined())
            let textModels = try await modelsFiltering(client: client)
            #expect(!textModels.isEmpty)
            #expect(textModels.allSatisfy { $0.supportedInAPI && $0.inputModalities.contains("text") })
        }
    }

    @Test("selectModel(_:) changes the model of later turns; the best-available and fallback helpers read the catalog")
    func selecting() async throws {
        try await DocsEnvironment.run { docs in
            let client = Chappie.client(streamingTransportPolicy: .httpSSEOnly)
            let best = try #require(try await client.bestAvailableModel())
            let fallback = try #require(try await client.fallbackModel(for: best.slug))
            #expect(fallback.slug != best.slug)
            await modelsSelecting(client: client, slug: fallback.slug)
            _ = try await client.send("Hi")
            #expect(await docs.responsesRequests().last?["model"]?.stringValue == fallback.slug)
        }
    }

    @Test("a 429 is retried per the custom policy, honouring Retry-After, over HTTP/SSE")
    func customBackoff() async throws {
        // An emulator that refuses WebSocket upgrades (426): the client streams over HTTP/SSE.
        try await DocsEnvironment.run(emulator: .init(pollingIntervalSeconds: 1, autoApproveAfterPolls: 1, acceptsWebSockets: false)) { docs in
            let client = rateLimitCustomBackoff()
            #expect(client.configuration.rateLimitBackoff.maxRetries == 3)
            #expect(client.configuration.rateLimitBackoff.maximumDelay == 15)
            await docs.emulator.scriptReplies(Self.rateLimited, .text("Made it."))
            let reply = try await client.send("Hi")
            #expect(reply == "Made it.")
        }
    }

    @Test("a 429 error event on the WebSocket is retried per the policy too")
    func customBackoffOverWebSocket() async throws {
        try await DocsEnvironment.run { docs in
            let client = rateLimitCustomBackoff()
            await docs.emulator.scriptReplies(Self.rateLimited, .text("Made it."))
            let reply = try await client.send("Hi")
            #expect(reply == "Made it.")
        }
    }

    /// A rate limit that is not a usage limit, retryable at once.
    static let rateLimited = ChappieEmulator.ScriptedReply.httpError(
        status: 429, body: #"{"error":{"type":"rate_limit_exceeded","message":"slow down"}}"#, headers: ["Retry-After": "0"])

    @Test(".disabled surfaces the first 429 as httpError(429, …)")
    func disabledBackoff() async throws {
        try await DocsEnvironment.run { docs in
            let client = Chappie.client(rateLimitBackoff: .disabled, streamingTransportPolicy: .httpSSEOnly)
            await docs.emulator.scriptReplies(
                .httpError(status: 429, body: #"{"error":{"type":"rate_limit_exceeded","message":"slow down"}}"#, headers: [:]))
            let error = await #expect(throws: ChappieClientError.self) { _ = try await client.send("Hi") }
            guard case .httpError(429, _)? = error else {
                Issue.record("expected httpError(429, …), got \(String(describing: error))")
                return
            }
            #expect(ChappieRateLimitBackoffPolicy.disabled == ChappieRateLimitBackoffPolicy(maxRetries: 0))
        }
    }

    @Test("usage limits: an on-demand snapshot and a mid-stream event")
    func usageLimits() async throws {
        try await DocsEnvironment.run { _ in
            let client = Chappie.client()
            let snapshot = try await client.usageLimits()
            #expect(snapshot.primary != nil)
            var sawUsage = false
            for try await event in client.stream("Hi") {
                if case .usageLimits = event { sawUsage = true }
            }
            #expect(sawUsage)
        }
    }
}
