@testable import ChappieCore
import ChappieSDKTesting
import ChappieTransport
import Foundation
import Testing

private let endpoints = ChappieEndpoints(authIssuer: URL(string: "https://auth.test")!, backend: URL(string: "https://backend.test/backend-api")!)
private let key = ChappieCredentialKey(service: "test", account: "default")

private func manager(stored: ChappieCredential?, transport: ScriptedTransport, time: ChappieVirtualTime = ChappieVirtualTime()) async throws
    -> (ContextBoundOwner, ChappieInMemoryCredentialStore) {
    let store = ChappieInMemoryCredentialStore()
    if let stored { try await store.saveCredential(stored, for: key) }
    let manager = ContextBoundOwner(store: store, key: key, tokenEndpoint: TokenEndpoint(endpoints: endpoints, transport: transport),
                                    time: time.timeSource)
    return (manager, store)
}

private func refreshReply(_ fresh: ChappieCredential) -> ScriptedTransport.Reply {
    .json(200, #"{"access_token":"\#(fresh.accessTokenForTests)","refresh_token":"rt_rotated_\#(UUID().uuidString)","id_token":"\#(fresh.idTokenForTests)","expires_in":3600}"#)
}

@Suite("Credential manager")
struct CredentialManagerTests {
    @Test("a token that is still valid is used without calling the token endpoint")
    func validToken() async throws {
        let credential = ChappieAuthFixtures.credential(expiresIn: 3600)
        let transport = ScriptedTransport(replies: [])
        let (manager, _) = try await manager(stored: credential, transport: transport)
        let authorization = try await manager.authorization()
        #expect(authorization.accessToken == credential.accessTokenForTests)
        #expect(try authorization.headers(to: ChappieEndpoints.openAI.responses, endpoints: .openAI)
            .contains { $0.name == "ChatGPT-Account-ID" && $0.value == "acct-test-0001" })
        #expect(await transport.requests.isEmpty)
    }

    @Test("a token expiring within five minutes is refreshed first, with a JSON body, and the rotation is persisted")
    func proactiveRefresh() async throws {
        let fresh = ChappieAuthFixtures.credential(expiresIn: 3600)
        let transport = ScriptedTransport(replies: [refreshReply(fresh)])
        let old = ChappieAuthFixtures.credential(expiresIn: 60)
        let (manager, store) = try await manager(stored: old, transport: transport)
        let authorization = try await manager.authorization()
        #expect(authorization.accessToken == fresh.accessTokenForTests)
        let request = try #require(await transport.requests.first)
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.jsonBody?["grant_type"] == "refresh_token")
        #expect(request.jsonBody?["refresh_token"]?.stringValue == old.refreshTokenForTests)
        let saved = try #require(try await store.loadCredential(for: key))
        #expect(saved.accessTokenForTests == fresh.accessTokenForTests)
        #expect(saved.refreshTokenForTests?.hasPrefix("rt_rotated_") == true)
    }

    @Test("1,000 concurrent requests with an expired token make exactly one refresh call")
    func singleFlight() async throws {
        let fresh = ChappieAuthFixtures.credential(expiresIn: 3600)
        let transport = ScriptedTransport(replies: [refreshReply(fresh)])
        let (manager, _) = try await manager(stored: ChappieAuthFixtures.credential(expiresIn: -10), transport: transport)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<1000 { group.addTask { try await manager.authorization().accessToken } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens == [fresh.accessTokenForTests])
        #expect(await transport.requests.count == 1)
    }

    @Test("a terminal refresh failure requires re-authentication and is not retried", arguments: [
        ScriptedTransport.Reply.json(401, #"{"error":{"message":"used","type":"invalid_request_error","code":"refresh_token_reused"}}"#),
        .json(400, #"{"error":{"code":"refresh_token_reused","message":"used"}}"#),
        .json(400, #"{"error":"invalid_grant","error_description":"bad"}"#),
        .json(403, "forbidden"),
    ])
    func terminalRefresh(reply: ScriptedTransport.Reply) async throws {
        let transport = ScriptedTransport(replies: [reply])
        let (manager, _) = try await manager(stored: ChappieAuthFixtures.credential(expiresIn: -10), transport: transport)
        let updates = await manager.statusUpdates()
        await #expect(throws: ChappieClientError.self) { try await manager.authorization() }
        await #expect(throws: ChappieClientError.self) { try await manager.authorization() }
        #expect(await transport.requests.count == 1)
        var iterator = updates.makeAsyncIterator()
        _ = await iterator.next()
        guard case .reauthenticationRequired = await iterator.next() else { Issue.record("no reauthenticationRequired status"); return }
        let error = await #expect(throws: ChappieClientError.self) { try await manager.authorization() }
        #expect(error?.requiresReauthentication == true)
    }

    @Test("a 5xx from the token endpoint is transient: the next call tries again")
    func transientRefresh() async throws {
        let fresh = ChappieAuthFixtures.credential(expiresIn: 3600)
        let transport = ScriptedTransport(replies: [.json(503, "busy"), refreshReply(fresh)])
        let (manager, _) = try await manager(stored: ChappieAuthFixtures.credential(expiresIn: -10), transport: transport)
        await #expect(throws: ChappieClientError.self) { try await manager.authorization() }
        #expect(try await manager.authorization().accessToken == fresh.accessTokenForTests)
    }

    @Test("a failed proactive refresh keeps using a token that is still valid")
    func proactiveFailureKeepsToken() async throws {
        let old = ChappieAuthFixtures.credential(expiresIn: 120)
        let (manager, _) = try await manager(stored: old, transport: ScriptedTransport(replies: [.json(500, "oops")]))
        #expect(try await manager.authorization().accessToken == old.accessTokenForTests)
    }

    @Test("no refresh token means missingRefreshToken")
    func noRefreshToken() async throws {
        let (manager, _) = try await manager(stored: ChappieAuthFixtures.credential(expiresIn: -10, includeRefreshToken: false),
                                             transport: ScriptedTransport(replies: []))
        await #expect(throws: ChappieClientError.missingRefreshToken) { try await manager.authorization() }
    }

    @Test("a 401 for an old generation does not refresh again once a newer token exists")
    func staleUnauthorized() async throws {
        let fresh = ChappieAuthFixtures.credential(expiresIn: 3600)
        let transport = ScriptedTransport(replies: [refreshReply(fresh)])
        let (manager, _) = try await manager(stored: ChappieAuthFixtures.credential(expiresIn: 3600), transport: transport)
        let first = try await manager.authorization()
        let recovered = try await manager.recoverFromUnauthorized(rejected: first)
        let again = try await manager.recoverFromUnauthorized(rejected: first)
        #expect(recovered.accessToken == fresh.accessTokenForTests)
        #expect(again.accessToken == fresh.accessTokenForTests)
        #expect(await transport.requests.count == 1)
    }

    @Test("a newer credential written by another process is adopted instead of spending the old refresh token")
    func adoptsNewerStoredCredential() async throws {
        let transport = ScriptedTransport(replies: [])
        let old = ChappieAuthFixtures.credential(expiresIn: 3600)
        let (manager, store) = try await manager(stored: old, transport: transport)
        let first = try await manager.authorization()
        let newer = ChappieAuthFixtures.credential(expiresIn: 3600)
        try await store.saveCredential(newer, for: key)
        let recovered = try await manager.recoverFromUnauthorized(rejected: first)
        #expect(recovered.accessToken == newer.accessTokenForTests)
        #expect(await transport.requests.isEmpty)
    }

    @Test("no stored credential is missingCredential")
    func missing() async throws {
        let (manager, _) = try await manager(stored: nil, transport: ScriptedTransport(replies: []))
        await #expect(throws: ChappieClientError.missingCredential) { try await manager.authorization() }
    }
}
