import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieCore

private func url(_ text: String) -> URL { URL(string: text)! }

/// A signed-in configuration (fixture credential in an in-memory store) for `endpoints`.
private func signedIn(_ endpoints: ChappieEndpoints) async throws -> ChappieConfiguration {
    try await ChappieAuthFixtures.signedIn(ChappieConfiguration(endpoints: endpoints))
}

@Suite("Where tokens may go")
struct EndpointSecurityTests {
    @Test("https goes anywhere; plain http and ws only to a literal loopback address or localhost", arguments: [
        ("https://chatgpt.com/backend-api", true), ("wss://chatgpt.com/backend-api", true),
        ("http://127.0.0.1:8765", true), ("http://127.255.10.3/backend-api", true), ("http://localhost:1", true),
        ("HTTP://LOCALHOST:1", true), ("http://[::1]:8080/backend-api", true), ("ws://127.0.0.1:9/x", true),
        ("http://example.com/backend-api", false), ("http://10.0.0.1:8080", false), ("http://128.0.0.1", false),
        ("http://127.attacker.example", false), ("http://127.0.0.1.nip.io", false), ("http://localhost.example.com", false),
        ("http://127.1", false), ("http://[::ffff:127.0.0.1]", false), ("http://[::2]", false),
        ("ws://example.com/x", false), ("ftp://127.0.0.1/", false), ("file:///tmp/x", false),
    ])
    func transportRule(text: String, allowed: Bool) {
        #expect(ChappieEndpoints.allowsSecrets(to: url(text)) == allowed)
    }

    @Test("the public API base follows the issuer unless set: changing only the issuer never leaves api.openai.com behind")
    func apiBaseFollowsTheIssuer() throws {
        var endpoints = ChappieEndpoints.openAI
        #expect(endpoints.apiBase == url("https://api.openai.com/v1"))
        endpoints.authIssuer = url("http://127.0.0.1:9000")
        endpoints.backend = url("http://127.0.0.1:9000/backend-api")
        #expect(endpoints.apiBase == url("http://127.0.0.1:9000/v1"))
        try endpoints.validate()
        endpoints.apiBase = url("https://api.openai.com/v1")
        #expect(throws: ChappieEndpointError.issuerNotOfBackend(issuer: "http://127.0.0.1:9000")) { try endpoints.validate() }
        // Stored data from before the public API existed decodes with the issuer's default.
        let old = Data(#"{"authIssuer":"http://127.0.0.1:9000","backend":"http://127.0.0.1:9000/backend-api"}"#.utf8)
        #expect(try JSONDecoder().decode(ChappieEndpoints.self, from: old).apiBase == url("http://127.0.0.1:9000/v1"))
        #expect(ChappieEndpoints(authIssuer: ChappieEndpoints.openAI.authIssuer, backend: ChappieEndpoints.openAI.backend,
                                 apiBase: url("https://api.openai.com/v1")) == .openAI)
    }

    @Test("validate names the endpoint that breaks the rule, with its origin only")
    func validateNamesTheEndpoint() {
        let remote = url("http://user:secret@10.0.0.1:8080/path?q=1")
        #expect(throws: ChappieEndpointError.insecureTransport(role: .authIssuer, origin: "http://10.0.0.1:8080")) {
            try ChappieEndpoints(authIssuer: remote, backend: url("https://chatgpt.com/backend-api")).validate()
        }
        #expect(throws: ChappieEndpointError.insecureTransport(role: .backend, origin: "http://10.0.0.1:8080")) {
            try ChappieEndpoints(authIssuer: url("https://proxy.example"), backend: remote).validate()
        }
        let error = ChappieEndpointError.insecureTransport(role: .backend, origin: "http://10.0.0.1:8080")
        #expect(!error.description.contains("secret") && error.description.contains("https"))
    }

    @Test("the WebSocket URL follows the backend's scheme whatever its case, and is checked too")
    func webSocketURL() throws {
        #expect(ChappieEndpoints.webSocketURL(for: url("HTTPS://chatgpt.com/backend-api/codex/responses")).scheme == "wss")
        #expect(ChappieEndpoints.webSocketURL(for: url("http://127.0.0.1:9/backend-api")).absoluteString == "ws://127.0.0.1:9/backend-api")
        #expect(throws: ChappieEndpointError.insecureTransport(role: .backend, origin: "ftp://127.0.0.1")) {
            try ChappieEndpoints(authIssuer: url("https://proxy.example"), backend: url("ftp://127.0.0.1/backend-api")).validate()
        }
    }

    @Test("the real hosts, an emulator, and a proxy for both pass")
    func validEndpoints() throws {
        try ChappieEndpoints.openAI.validate()
        try ChappieEndpoints(authIssuer: url("http://127.0.0.1:8765"), backend: url("http://127.0.0.1:8765/backend-api")).validate()
        try ChappieEndpoints(authIssuer: url("https://proxy.example"), backend: url("https://proxy.example/backend-api")).validate()
        try ChappieEndpoints(authIssuer: url("HTTPS://AUTH.OPENAI.COM/"), backend: url("https://chatgpt.com:443/backend-api/")).validate()
    }

    @Test("the OpenAI issuer with another backend is refused: a ChatGPT sign-in stays with ChatGPT", arguments: [
        "http://127.0.0.1:8765/backend-api", "https://proxy.example/backend-api", "https://chatgpt.com/other",
    ])
    func backendOverrideAlone(backend: String) {
        let endpoints = ChappieEndpoints(authIssuer: ChappieEndpoints.openAI.authIssuer, backend: url(backend))
        #expect(throws: ChappieEndpointError.backendNotOfIssuer(backend: ChappieEndpoints.origin(of: url(backend)))) {
            try endpoints.validate()
        }
    }

    @Test("another issuer with the OpenAI backend is refused: its sign-in never goes to ChatGPT", arguments: [
        "http://127.0.0.1:8765", "https://proxy.example",
    ])
    func issuerOverrideAlone(issuer: String) async throws {
        let endpoints = ChappieEndpoints(authIssuer: url(issuer), backend: ChappieEndpoints.openAI.backend)
        let expected = ChappieEndpointError.issuerNotOfBackend(issuer: ChappieEndpoints.origin(of: url(issuer)))
        #expect(throws: expected) { try endpoints.validate() }
        let configuration = try await signedIn(endpoints)
        let transport = ScriptedTransport(replies: [.json(200, "{}")])
        let client = ChappieClient(configuration: configuration, transport: transport, webSockets: ScriptedWebSocketConnector([]),
                                   timeSource: ChappieVirtualTime().timeSource)
        await #expect(throws: ChappieClientError.insecureEndpoint(expected)) { try await client.models() }
        await #expect(throws: ChappieClientError.insecureEndpoint(expected)) { try await client.send("hi") }
        #expect(await transport.requests.isEmpty)
    }

    @Test("a client with an insecure backend fails every call before any request, WebSocket included", arguments: [
        "http://example.com/backend-api", "http://127.0.0.1.nip.io/backend-api",
    ])
    func clientSendsNothing(backend: String) async throws {
        let configuration = try await signedIn(ChappieEndpoints(authIssuer: url("https://auth.test"), backend: url(backend)))
        let transport = ScriptedTransport(replies: [.json(200, "{}")])
        let webSockets = ScriptedWebSocketConnector([])
        let client = ChappieClient(configuration: configuration, transport: transport, webSockets: webSockets,
                                   timeSource: ChappieVirtualTime().timeSource)
        let expected = ChappieClientError.insecureEndpoint(.insecureTransport(role: .backend, origin: ChappieEndpoints.origin(of: url(backend))))
        await #expect(throws: expected) { try await client.send("hi") }
        await #expect(throws: expected) { try await client.models() }
        await #expect(throws: expected) { try await client.usageLimits() }
        await #expect(throws: expected) {
            for try await _ in client.stream("hi") {}
        }
        #expect(await transport.requests.isEmpty)
        #expect(await webSockets.connectCount == 0)
    }

    @Test("the OpenAI issuer's token is never sent to a backend override")
    func clientWithForeignBackend() async throws {
        let configuration = try await signedIn(ChappieEndpoints(authIssuer: ChappieEndpoints.openAI.authIssuer,
                                                                backend: url("http://127.0.0.1:9/backend-api")))
        let transport = ScriptedTransport(replies: [.json(200, "{}")])
        let client = ChappieClient(configuration: configuration, transport: transport, webSockets: ScriptedWebSocketConnector([]),
                                   timeSource: ChappieVirtualTime().timeSource)
        await #expect(throws: ChappieClientError.insecureEndpoint(.backendNotOfIssuer(backend: "http://127.0.0.1:9"))) {
            try await client.models()
        }
        #expect(await transport.requests.isEmpty)
    }

    @Test("sign-in over plain http to another machine sends nothing")
    func signInSendsNothing() async throws {
        let endpoints = ChappieEndpoints(authIssuer: url("http://auth.example"), backend: url("https://backend.example/backend-api"))
        let transport = ScriptedTransport(replies: [.json(200, "{}")])
        let flow = DeviceCodeFlow(endpoints: endpoints, transport: transport, time: ChappieVirtualTime().timeSource)
        await #expect(throws: ChappieAuthError.insecureEndpoint(.insecureTransport(role: .authIssuer, origin: "http://auth.example:80"))) {
            try await flow.requestCode()
        }
        #expect(await transport.requests.isEmpty)
    }

    @Test("refresh and revocation never send a refresh token to a plain-http issuer")
    func refreshSendsNothing() async throws {
        let endpoints = ChappieEndpoints(authIssuer: url("http://auth.example"), backend: url("https://backend.example/backend-api"))
        let transport = ScriptedTransport(replies: [.json(200, "{}")])
        let token = TokenEndpoint(endpoints: endpoints, transport: transport)
        let store = ChappieInMemoryCredentialStore()
        let key = ChappieCredentialKey(service: "test", account: "default")
        try await store.saveCredential(ChappieAuthFixtures.credential(expiresIn: -60), for: key)
        let manager = ContextBoundOwner(store: store, key: key, tokenEndpoint: token, time: ChappieVirtualTime().timeSource)
        await #expect(throws: ChappieClientError.insecureEndpoint(.insecureTransport(role: .authIssuer, origin: "http://auth.example:80"))) {
            try await manager.authorization()
        }
        await token.revoke(token: "rt_secret_value_0123456789", hint: "refresh_token")
        #expect(await transport.requests.isEmpty)
    }

    @Test("the credential slot is the configured one for OpenAI, and one of its own per other issuer")
    func credentialSlots() {
        #expect(ChappieConfiguration().credentialKey == ChappieCredentialKey(service: ChappieConfiguration.defaultKeychainService, account: "default"))
        var emulator = ChappieConfiguration(keychainService: "com.chappie.sdk", keychainAccount: "ada")
        emulator.endpoints = ChappieEndpoints(authIssuer: url("http://127.0.0.1:8765/"), backend: url("http://127.0.0.1:8765/backend-api"))
        #expect(emulator.credentialKey == ChappieCredentialKey(service: "com.chappie.sdk.issuer.http://127.0.0.1:8765", account: "ada"))
        var other = emulator
        other.endpoints.authIssuer = url("http://127.0.0.1:8766")
        #expect(other.credentialKey != emulator.credentialKey)
        var spelledDifferently = ChappieConfiguration()
        spelledDifferently.endpoints.authIssuer = url("HTTPS://auth.openai.com:443/")
        #expect(spelledDifferently.credentialKey == ChappieConfiguration().credentialKey)
    }

    @Test("a configuration with another issuer never finds, or sends, the ChatGPT sign-in of the same store")
    func otherIssuerSeesNoChatGPTSignIn() async throws {
        try await ChappieEmulator.with { emulator in
            // given: a ChatGPT sign-in in the default slot of a shared store
            let store = ChappieInMemoryCredentialStore()
            try await store.saveCredential(ChappieAuthFixtures.credential(), for: ChappieConfiguration().credentialKey)
            // when: the same store and slot names, pointed at another issuer and backend
            let configuration = ChappieConfiguration(endpoints: ChappieEndpoints(authIssuer: emulator.baseURL, backend: emulator.backendBaseURL),
                                                     credentialStore: store)
            let client = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            // then
            await #expect(throws: ChappieClientError.missingCredential) { try await client.models() }
            #expect(await emulator.recordedRequests().isEmpty)
        }
    }
}
