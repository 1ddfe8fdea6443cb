import ChappieSDKTesting
import ChappieTransport
import Foundation
import Testing
@_spi(ChappieTesting) @testable import ChappieCore

private func pipeline(_ credential: ChappieCredential, transport: ScriptedTransport) async throws -> RequestPipeline {
    let configuration = try await ChappieAuthFixtures.signedIn(ChappieConfiguration(endpoints: publicAPIEndpoints), credential: credential)
    return RequestPipeline(configuration: configuration, transport: transport, credentials: CredentialManager.shared(for: configuration),
                           time: ChappieVirtualTime().timeSource)
}

private func deviceCodeCredential() -> ChappieCredential { ChappieAuthFixtures.credential() }

@Suite("Credential route guard")
struct CredentialRouteGuardTests {
    @Test("a device-code token is never sent to the public API: refused before sending", arguments: [
        "https://api.test/v1/responses", "https://api.test/v1/models",
    ])
    func codexTokenToPublicAPI(url: String) async throws {
        let transport = ScriptedTransport(replies: [.json(200, "{}")])
        let pipeline = try await pipeline(deviceCodeCredential(), transport: transport)
        let error = await #expect(throws: ChappieClientError.self) {
            _ = try await pipeline.sendJSON(method: "GET", url: URL(string: url)!, body: nil, sessionID: "s")
        }
        #expect(error == .publicAPI(ChappieAPIError(code: .credentialRouteMismatch)))
        #expect(await transport.requests.isEmpty)
    }

    @Test("a Sign in with ChatGPT token is never sent to the ChatGPT backend: refused before sending", arguments: [
        "https://api.test/backend-api/codex/responses", "https://api.test/backend-api/codex/models", "https://api.test/backend-api/wham/usage",
        "https://api.test/backend-api/codex/responses/compact", "https://elsewhere.test/v1/responses",
    ])
    func siwcTokenToBackendAPI(url: String) async throws {
        let transport = ScriptedTransport(replies: [.json(200, "{}")])
        let pipeline = try await pipeline(signInWithChatGPTCredential(), transport: transport)
        let error = await #expect(throws: ChappieClientError.self) {
            _ = try await pipeline.sendJSON(method: "GET", url: URL(string: url)!, body: nil, sessionID: "s")
        }
        #expect(error == .publicAPI(ChappieAPIError(code: .credentialRouteMismatch)))
        #expect(await transport.requests.isEmpty)
    }

    @Test("the WebSocket URL belongs to the ChatGPT backend: a Sign in with ChatGPT token gets no handshake headers for it")
    func webSocketURL() throws {
        let authorization = Authorization(accessToken: "t", accountID: nil, generation: 0, route: .signInWithChatGPT)
        #expect(throws: ChappieClientError.publicAPI(ChappieAPIError(code: .credentialRouteMismatch))) {
            _ = try authorization.headers(to: publicAPIEndpoints.responsesWebSocket, endpoints: publicAPIEndpoints)
        }
        let codex = Authorization(accessToken: "t", accountID: "acct", generation: 0)
        #expect(try codex.headers(to: publicAPIEndpoints.responsesWebSocket, endpoints: publicAPIEndpoints).count == 2)
    }

    @Test("each route's own requests get their own headers: the account header only on the ChatGPT backend")
    func ownRoutes() throws {
        let codex = Authorization(accessToken: "t", accountID: "acct", generation: 0)
        let codexHeaders = try codex.headers(to: publicAPIEndpoints.responses, endpoints: publicAPIEndpoints)
        #expect(codexHeaders.contains { $0.name == "ChatGPT-Account-ID" })
        let siwc = Authorization(accessToken: "t", accountID: nil, generation: 0, route: .signInWithChatGPT)
        let siwcHeaders = try siwc.headers(to: URL(string: "https://api.test/v1/responses")!, endpoints: publicAPIEndpoints)
        #expect(siwcHeaders.map(\.name) == ["Authorization"])
    }

    @Test("the longest base wins when the public API lives under the backend's path")
    func nestedBases() {
        let endpoints = ChappieEndpoints(authIssuer: URL(string: "http://127.0.0.1:9")!, backend: URL(string: "http://127.0.0.1:9")!,
                                         apiBase: URL(string: "http://127.0.0.1:9/v1")!)
        #expect(InferenceBackend.destination(of: URL(string: "http://127.0.0.1:9/v1/responses")!, in: endpoints) == .publicAPI)
        #expect(InferenceBackend.destination(of: URL(string: "http://127.0.0.1:9/codex/responses")!, in: endpoints) == .codex)
        #expect(InferenceBackend.destination(of: URL(string: "http://127.0.0.1:9/v10/responses")!, in: endpoints) == .codex)
        #expect(InferenceBackend.destination(of: URL(string: "http://127.0.0.2:9/v1/responses")!, in: endpoints) == nil)
    }
}
