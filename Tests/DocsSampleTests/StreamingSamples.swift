import ChappieSDK
import ChappieSDKTesting
import Testing

// Samples of https://docs.chappiesdk.com/concepts/streaming and
// https://docs.chappiesdk.com/configuration/streaming-transport, as published. Lines ending in
// `// +test` are not in the docs; lines with `// docs:` differ from them, saying why.

/// Streaming, "Basic Streaming".
func streamingBasicStreaming() async throws {
    let client = Chappie.client()
    for try await event in client.stream("Write a welcome message.") {
        switch event {
        case .textDelta(let text):
            print(text, terminator: "")
        case .usageLimits(let snapshot):
            // Update usage UI
            _ = snapshot  // docs: the docs leave `snapshot` unused, which is a warning
            break
        case .completed:
            break
        default:
            break
        }
    }
}

/// Streaming transport, "Available transport policies": the memberwise initializer as the docs
/// show its signature (`prewarmsWebSocket`, added since, keeps its default).
func streamingTransportCustomPolicy() -> ChappieStreamingTransportPolicy {
    ChappieStreamingTransportPolicy(
        prefersWebSocket: true,
        maxWebSocketReconnectionAttempts: 5,
        fallsBackToHTTPSSE: true
    )
}

/// Streaming transport, "Forcing HTTP/SSE-only transport".
func streamingTransportHTTPSSEOnlyClient() -> ChappieClient {
    let client = Chappie.client(
        streamingTransportPolicy: .httpSSEOnly
    )
    return client  // +test
}

/// Streaming transport, "Via a shared ChappieConfiguration".
@MainActor
func streamingTransportSharedConfiguration() -> (ChappieAuthSession, ChappieClient) {
    let config = ChappieConfiguration(
        streamingTransportPolicy: .httpSSEOnly
    )

    let authSession = Chappie.authSession(configuration: config)
    let client = Chappie.client(configuration: config)
    return (authSession, client)  // +test
}

@Suite("Published docs: Streaming")
struct StreamingSampleTests {
    @Test("the basic streaming loop prints the deltas in order, and the stream ends after .completed")
    func basicStreaming() async throws {
        try await DocsEnvironment.run { docs in
            await docs.emulator.scriptReplies(.text("Welcome to the app, glad you are here!"))
            try await streamingBasicStreaming()
            #expect(docs.output.text == "Welcome to the app, glad you are here!")
        }
    }

    @Test("the policy the docs spell out is .default, and .httpSSEOnly never tries a WebSocket")
    func policies() {
        #expect(streamingTransportCustomPolicy() == .default)
        #expect(ChappieStreamingTransportPolicy.httpSSEOnly.prefersWebSocket == false)
        #expect(ChappieStreamingTransportPolicy.httpSSEOnly.maxWebSocketReconnectionAttempts == 0)
        #expect(ChappieStreamingTransportPolicy.httpSSEOnly.fallsBackToHTTPSSE)
    }

    @Test("an .httpSSEOnly client streams over HTTP/SSE, a default client over the WebSocket")
    func transports() async throws {
        try await DocsEnvironment.run { docs in
            let sse = try await streamingTransportHTTPSSEOnlyClient().response(ChappieResponseRequest(messages: [.user("Hi")]))
            #expect(sse.transport == .httpSSE)
            let webSocket = try await Chappie.client().response(ChappieResponseRequest(messages: [.user("Hi")]))
            #expect(webSocket.transport == .webSocket)
        }
    }

    @Test("a shared configuration gives the session and the client the same slot and policy")
    @MainActor
    func sharedConfiguration() async throws {
        try await DocsEnvironment.run { _ in
            let (authSession, client) = streamingTransportSharedConfiguration()
            await authSession.reload()
            #expect(authSession.state == .signedIn)
            #expect(client.configuration.streamingTransportPolicy == .httpSSEOnly)
            let response = try await client.response(ChappieResponseRequest(messages: [.user("Hi")]))
            #expect(response.transport == .httpSSE)
        }
    }
}
