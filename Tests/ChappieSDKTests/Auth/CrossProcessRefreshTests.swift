import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@_spi(ChappieTesting) @testable import ChappieCore

@Suite("Refresh across processes")
struct CrossProcessRefreshTests {
    let key = ChappieCredentialKey(service: "com.chappie.sdk", account: "default")

    @Test("two managers sharing one file store (two processes) never spend the same refresh token")
    func sharedFileStore() async throws {
        let emulator = try await ChappieEmulator.start(.init(accessTokenLifetime: 3600))
        let folder = FileManager.default.temporaryDirectory.appending(path: "chappie-xproc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let tokens = await emulator.issueTokens(accessTokenLifetime: -10)
        let expired = ChappieCredential(idToken: tokens.idToken, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
                                        expiresIn: -10, obtainedAt: Date())
        try await ChappieFileCredentialStore(directory: folder).saveCredential(expired, for: key)
        let endpoints = ChappieEndpoints(authIssuer: emulator.baseURL, backend: emulator.backendBaseURL)
        let managers = (0..<2).map { _ in
            ContextBoundOwner(store: ChappieFileCredentialStore(directory: folder), key: key,
                              tokenEndpoint: TokenEndpoint(endpoints: endpoints, transport: URLSessionHTTPTransport()), time: .system)
        }
        let results = try await withThrowingTaskGroup(of: String.self) { group in
            for manager in managers { group.addTask { try await manager.authorization().accessToken } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(Set(results).count == 1)
        #expect(!results.contains(tokens.accessToken))
        #expect(await emulator.refreshGrantsServed == 1)
        await emulator.shutdown()
    }

    @Test("a credential of another account written meanwhile is never adopted")
    func anotherAccount() async throws {
        let store = ChappieInMemoryCredentialStore()
        let mine = ChappieAuthFixtures.credential(accountID: "acct-mine", expiresIn: 3600)
        try await store.saveCredential(mine, for: key)
        let transport = ScriptedTransport(replies: [])
        let manager = ContextBoundOwner(store: store, key: key,
                                        tokenEndpoint: TokenEndpoint(endpoints: .openAI, transport: transport), time: .system)
        let authorization = try await manager.authorization()
        try await store.saveCredential(ChappieAuthFixtures.credential(accountID: "acct-other", expiresIn: 3600), for: key)
        let error = await #expect(throws: ChappieClientError.self) { try await manager.recoverFromUnauthorized(rejected: authorization) }
        #expect(error?.requiresReauthentication == true)
        #expect(await transport.requests.isEmpty)
        #expect(try await store.loadCredential(for: key)?.accountID == "acct-other")
    }
}
