import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@_spi(ChappieTesting) @_spi(ChappieCredentialStorage) @testable import ChappieCore
#if canImport(Glibc)
import Glibc
#endif

private let endpoints = ChappieEndpoints(authIssuer: URL(string: "https://auth.test")!, backend: URL(string: "https://backend.test/backend-api")!)
private let key = ChappieCredentialKey(service: "concurrent-test", account: "default")

/// An in-memory store whose saves fail (a full disk) while `failing` is set.
private actor FullDiskStore: ChappieCredentialStore {
    private var credentials: [ChappieCredentialKey: ChappieCredential] = [:]
    private(set) var failing = false
    nonisolated var identity: String { "full-disk-test" }

    func setFailing(_ value: Bool) { failing = value }
    func loadCredential(for key: ChappieCredentialKey) async throws -> ChappieCredential? { credentials[key] }
    func saveCredential(_ credential: ChappieCredential, for key: ChappieCredentialKey) async throws {
        if failing { throw ChappieCredentialStoreError.io("write failed: No space left on device") }
        credentials[key] = credential
    }
    func deleteCredential(for key: ChappieCredentialKey) async throws { credentials[key] = nil }
}

/// Two credential owners (two processes) of one slot in `store`, and the held token endpoint.
private func twoProcesses(_ store: any ChappieCredentialStore)
    -> (first: ContextBoundOwner, second: ContextBoundOwner, gate: GatedTokenEndpoint) {
    let gate = GatedTokenEndpoint()
    let transport = ScriptedTransport { request, _ in await gate.handle(request) }
    let owners = (0..<2).map { _ in
        ContextBoundOwner(store: store, key: key, tokenEndpoint: TokenEndpoint(endpoints: endpoints, transport: transport), time: .system)
    }
    return (owners[0], owners[1], gate)
}

@Suite("Sign-in and sign-out against another process's refresh")
struct ConcurrentSignOutTests {
    @Test("another process's sign-out during a refresh is never undone: not written back, new tokens revoked",
          arguments: ["memory", "file"])
    func signOutDuringRefresh(storeKind: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "chappie-signout-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store: any ChappieCredentialStore = storeKind == "file" ? ChappieFileCredentialStore(directory: folder) : ChappieInMemoryCredentialStore()
        try await store.saveCredential(ChappieAuthFixtures.credential(expiresIn: -60), for: key)
        let (refreshing, other, gate) = twoProcesses(store)
        // given: the first process is refreshing
        let request = Task { try await refreshing.authorization() }
        await gate.nextArrival()
        // when: the other process signs out (and the token endpoint answers the refresh)
        let signOut = Task { try await other.signOut() }
        if storeKind == "memory" { try await signOut.value }
        await gate.releaseOne()
        try await signOut.value
        _ = try? await request.value
        // then: the slot stays signed out
        #expect(try await store.loadCredential(for: key) == nil)
        #expect(await refreshing.currentStatus() == .signedOut || storeKind == "file")
        if storeKind == "memory" { #expect(await gate.revokedTokens.contains("rt_new_1")) }
    }

    @Test("another process's sign-in as another account is never overwritten by a late refresh")
    func signInDuringRefresh() async throws {
        let store = ChappieInMemoryCredentialStore()
        // The token endpoint renews for the fixtures' default account.
        try await store.saveCredential(ChappieAuthFixtures.credential(expiresIn: -60), for: key)
        let (refreshing, other, gate) = twoProcesses(store)
        let request = Task { try await refreshing.authorization() }
        await gate.nextArrival()
        try await other.adopt(ChappieAuthFixtures.credential(accountID: "acct-new", expiresIn: 3600))
        await gate.releaseOne()
        await #expect(throws: ChappieClientError.self) { _ = try await request.value }
        #expect(try await store.loadCredential(for: key)?.accountID == "acct-new")
        #expect(await gate.revokedTokens.contains("rt_new_1"))
        // The refreshing process now uses the new sign-in.
        #expect(try await refreshing.authorization().accountID == "acct-new")
    }

    @Test("a running client notices another process's sign-out before its next request")
    func noticesSignOut() async throws {
        let store = ChappieInMemoryCredentialStore()
        try await store.saveCredential(ChappieAuthFixtures.credential(expiresIn: 3600), for: key)
        let (running, other, _) = twoProcesses(store)
        _ = try await running.authorization()
        try await other.signOut()
        await #expect(throws: ChappieClientError.missingCredential) { _ = try await running.authorization() }
        #expect(await running.currentStatus() == .signedOut)
    }

    @Test("a running client notices another process's sign-in as another account before its next request")
    func noticesSignIn() async throws {
        let store = ChappieInMemoryCredentialStore()
        try await store.saveCredential(ChappieAuthFixtures.credential(accountID: "acct-old", expiresIn: 3600), for: key)
        let (running, other, _) = twoProcesses(store)
        _ = try await running.authorization()
        try await other.adopt(ChappieAuthFixtures.credential(accountID: "acct-new", expiresIn: 3600))
        #expect(try await running.authorization().accountID == "acct-new")
    }

    @Test("a full disk keeps the rotated credential in memory and saves it once space is back")
    func fullDisk() async throws {
        let store = FullDiskStore()
        try await store.saveCredential(ChappieAuthFixtures.credential(expiresIn: -60), for: key)
        let (owner, _, gate) = twoProcesses(store)
        await store.setFailing(true)
        let request = Task { try await owner.authorization() }
        await gate.nextArrival()
        await gate.releaseOne()
        // when: the save failed, the new tokens are still used
        let first = try await request.value
        #expect(try await store.loadCredential(for: key)?.refreshToken != "rt_new_1")
        // then: the next request saves them, and nothing is refreshed twice
        await store.setFailing(false)
        let second = try await owner.authorization()
        #expect(second.accessToken == first.accessToken)
        #expect(try await store.loadCredential(for: key)?.refreshToken == "rt_new_1")
        #expect(await gate.refreshCalls == 1)
    }

    @Test("a lock file that cannot be used fails a refresh with a client error that says why")
    func lockFailureWrapped() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "chappie-lockfail-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = ChappieFileCredentialStore(directory: folder)
        try await store.saveCredential(ChappieAuthFixtures.credential(expiresIn: -60), for: key)
        let lock = store.fileURL(for: key).deletingLastPathComponent().path + "/default.lock"
        #expect(mkdir(lock, 0o700) == 0)  // a folder where the lock file belongs
        let (owner, _, _) = twoProcesses(store)
        let error = await #expect(throws: ChappieClientError.self) { _ = try await owner.authorization() }
        guard case .credentialStore(let message)? = error else {
            Issue.record("expected credentialStore, got \(String(describing: error))")
            return
        }
        #expect(message.contains("lock"))
    }
}

@Suite("File credential store: a save cut short by kill -9")
struct LeftoverSaveTests {
    @Test("a complete temporary file newer than the credential is recovered at the next start; others are removed")
    func recoversLeftover() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "chappie-leftover-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = ChappieFileCredentialStore(directory: folder)
        let old = ChappieAuthFixtures.credential(now: Date(timeIntervalSinceNow: -600))
        try await store.saveCredential(old, for: key)
        let rotated = ChappieAuthFixtures.credential(now: Date())
        let file = store.fileURL(for: key)
        let directory = file.deletingLastPathComponent()
        // given: what a process killed between fsync and rename leaves, plus a torn one
        let complete = directory.appending(path: ".\(file.lastPathComponent).\(UUID().uuidString).tmp").path
        let torn = directory.appending(path: ".\(file.lastPathComponent).\(UUID().uuidString).tmp").path
        #expect(FileManager.default.createFile(atPath: complete, contents: try rotated.encodedForStorage(), attributes: [.posixPermissions: 0o600]))
        #expect(FileManager.default.createFile(atPath: torn, contents: Data("{\"access".utf8), attributes: [.posixPermissions: 0o600]))
        // when: the next process starts
        let loaded = try await ChappieFileCredentialStore(directory: folder).loadCredential(for: key)
        // then
        #expect(loaded?.refreshToken == rotated.refreshToken)
        #expect(!FileManager.default.fileExists(atPath: complete))
        #expect(!FileManager.default.fileExists(atPath: torn))
    }

    @Test("a leftover older than the credential is removed, and a sign-out removes leftovers too")
    func removesStale() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "chappie-leftover-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = ChappieFileCredentialStore(directory: folder)
        let current = ChappieAuthFixtures.credential(now: Date())
        try await store.saveCredential(current, for: key)
        let file = store.fileURL(for: key)
        let stale = file.deletingLastPathComponent().appending(path: ".\(file.lastPathComponent).\(UUID().uuidString).tmp").path
        let older = ChappieAuthFixtures.credential(now: Date(timeIntervalSinceNow: -600))
        #expect(FileManager.default.createFile(atPath: stale, contents: try older.encodedForStorage(), attributes: [.posixPermissions: 0o600]))
        #expect(try await store.loadCredential(for: key)?.refreshToken == current.refreshToken)
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.createFile(atPath: stale, contents: try older.encodedForStorage(), attributes: [.posixPermissions: 0o600]))
        try await store.deleteCredential(for: key)
        #expect(try await store.loadCredential(for: key) == nil)
    }
}

@Suite("A refused refresh with time left on the access token")
struct RefusedRefreshTests {
    @Test("calls keep using a still-valid access token after the issuer refused to renew it, until it expires")
    func keepsValidToken() async throws {
        let store = ChappieInMemoryCredentialStore()
        let stored = ChappieAuthFixtures.credential(expiresIn: 60)
        try await store.saveCredential(stored, for: key)
        let transport = ScriptedTransport(replies: [.json(400, #"{"error":"invalid_grant","error_description":"refused"}"#)])
        let owner = ContextBoundOwner(store: store, key: key, tokenEndpoint: TokenEndpoint(endpoints: endpoints, transport: transport),
                                      time: .system)
        let first = try await owner.authorization()
        let second = try await owner.authorization()
        #expect(first.accessToken == stored.accessTokenForTests && second.accessToken == stored.accessTokenForTests)
        #expect(await transport.requests(endingWith: "/oauth/token").count == 1, "a refused refresh token is not spent again")
    }
}
