import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@_spi(ChappieCredentialStorage) @testable import ChappieCore

@Suite("Auth session: restoring a returning user")
@MainActor
struct AuthSessionRestoreTests {
    @Test("with a store that reads synchronously, a returning user is signed in when the session is created, before any await")
    func signedInAtCreation() async throws {
        // given
        let configuration = try await ChappieAuthFixtures.signedIn(ChappieConfiguration(keychainAccount: "sync-\(UUID())"))
        // when
        let session = ChappieAuthSession(configuration: configuration)
        // then: no suspension point since creation
        #expect(session.state == .signedIn)
        #expect(session.accountInfo?.email == "tester@example.com")
        #expect(session.lastError == nil)
    }

    @Test("with a store that reads synchronously and holds nothing, the session starts signed out")
    func signedOutAtCreation() {
        let configuration = ChappieConfiguration(keychainAccount: "empty-\(UUID())", credentialStore: ChappieInMemoryCredentialStore())
        let session = ChappieAuthSession(configuration: configuration)
        #expect(session.state == .signedOut)
        #expect(session.accountInfo == nil)
    }

    @Test("a credential whose renewal was refused in an earlier launch shows reauthenticationRequired at creation, with the reason")
    func refusedRenewalAtCreation() async throws {
        // given
        let marked = ChappieAuthFixtures.credential().markingReauthenticationRequired("the sign-in server refused to renew the session (HTTP 400)")
        let configuration = try await ChappieAuthFixtures.signedIn(ChappieConfiguration(keychainAccount: "marked-\(UUID())"), credential: marked)
        // when
        let session = ChappieAuthSession(configuration: configuration)
        // then
        #expect(session.state == .reauthenticationRequired)
        #expect(session.lastError == .reauthenticationRequired("the sign-in server refused to renew the session (HTTP 400)"))
        #expect(ChappieSignInButtonState(snapshot: session.snapshot).title == "Sign in again with ChatGPT")
        await session.reload()
        #expect(session.state == .reauthenticationRequired)
    }

    @Test("with a store that reads only asynchronously, the state is restoring until the read ends, then signed in, never signed out")
    func restoringThenSignedIn() async throws {
        // given
        let configuration = ChappieConfiguration(keychainAccount: "async", credentialStore: AsyncOnlyCredentialStore())
        try await configuration.credentialStore.saveCredential(ChappieAuthFixtures.credential(), for: configuration.credentialKey)
        // when
        let session = ChappieAuthSession(configuration: configuration)
        // then
        #expect(session.state == .restoring)
        #expect(ChappieSignInButtonState(snapshot: session.snapshot).isHidden)
        var states: [ChappieAuthState] = []
        for await snapshot in session.updates {
            if states.last != snapshot.state { states.append(snapshot.state) }
            if snapshot.state != .restoring { break }
        }
        #expect(states == [.restoring, .signedIn])
        #expect(session.accountInfo?.email == "tester@example.com")
    }

    @Test("with a store that reads only asynchronously and holds nothing, reload ends restoring as signed out")
    func restoringThenSignedOut() async {
        let session = ChappieAuthSession(configuration: ChappieConfiguration(credentialStore: AsyncOnlyCredentialStore()))
        #expect(session.state == .restoring)
        await session.reload()
        #expect(session.state == .signedOut)
    }

    @Test("a sign-in started while restoring that fails leaves the stored sign-in's state, not signed out")
    func failedSignInWhileRestoring() async throws {
        try await ChappieTestEmulator.with(
            .init(pollingIntervalSeconds: 1, autoApproveAfterPolls: nil),
            configure: { $0.credentialStore = AsyncOnlyCredentialStore() }
        ) { emulator, configuration in
            // given
            try await configuration.credentialStore.saveCredential(ChappieAuthFixtures.credential(), for: configuration.credentialKey)
            let gate = SleepGate()
            let session = ChappieAuthSession(configuration: configuration, timeSource: gate.timeSource)
            #expect(session.state == .restoring)
            // when
            let signIn = Task { try await session.startDeviceCodeSignIn() }
            let userCode = try #require(await emulator.nextDeviceCode())
            await emulator.deny(userCode: userCode)
            await gate.release()
            await #expect(throws: ChappieAuthError.deviceCodeDenied) { try await signIn.value }
            // then
            #expect(session.state == .signedIn)
            #expect(session.lastError == .deviceCodeDenied)
        }
    }
}

@Suite("Refused renewal kept across launches")
struct ReauthenticationMarkerTests {
    private static let key = ChappieCredentialKey(service: "test", account: "marker")
    private static let endpoints = ChappieEndpoints(authIssuer: URL(string: "https://auth.test")!, backend: URL(string: "https://backend.test/backend-api")!)

    private static func manager(_ store: any ChappieCredentialStore, _ transport: ScriptedTransport) -> ContextBoundOwner {
        ContextBoundOwner(store: store, key: key, tokenEndpoint: TokenEndpoint(endpoints: endpoints, transport: transport),
                          time: ChappieVirtualTime().timeSource)
    }

    @Test("a refresh token the server refuses is marked on the stored credential; the next launch needs re-authentication without a request")
    func refusalSurvivesRelaunch() async throws {
        // given
        let store = ChappieInMemoryCredentialStore()
        let credential = ChappieAuthFixtures.credential(expiresIn: -10)
        try await store.saveCredential(credential, for: Self.key)
        let refusing = ScriptedTransport(replies: [.json(400, #"{"error":{"code":"refresh_token_reused","message":"used"}}"#)])
        await #expect(throws: ChappieClientError.self) { try await Self.manager(store, refusing).authorization() }
        // when: a new process reads the same store
        let relaunched = ScriptedTransport(replies: [])
        let manager = Self.manager(store, relaunched)
        // then
        let stored = try #require(try await store.loadCredential(for: Self.key))
        #expect(stored.reauthenticationReason?.contains("HTTP 400, refresh_token_reused") == true)
        #expect(stored.refreshTokenForTests == credential.refreshTokenForTests)
        guard case .reauthenticationRequired = await manager.currentStatus() else { Issue.record("not reauthenticationRequired"); return }
        let error = await #expect(throws: ChappieClientError.self) { try await manager.authorization() }
        #expect(error?.requiresReauthentication == true)
        #expect(await relaunched.requests.isEmpty)
        #expect(try store.loadCredentialSynchronously(for: Self.key) == .loaded(stored))
    }

    @Test("a credential without a refresh token is marked too once a renewal was needed")
    func missingRefreshTokenIsMarked() async throws {
        let store = ChappieInMemoryCredentialStore()
        try await store.saveCredential(ChappieAuthFixtures.credential(expiresIn: -10, includeRefreshToken: false), for: Self.key)
        await #expect(throws: ChappieClientError.missingRefreshToken) { try await Self.manager(store, ScriptedTransport(replies: [])).authorization() }
        #expect(try await store.loadCredential(for: Self.key)?.reauthenticationReason == "the saved sign-in has no refresh token")
    }

    @Test("a new sign-in stores a credential without the mark")
    func newSignInClearsTheMark() async throws {
        // given
        let store = ChappieInMemoryCredentialStore()
        try await store.saveCredential(ChappieAuthFixtures.credential().markingReauthenticationRequired("refused"), for: Self.key)
        let manager = Self.manager(store, ScriptedTransport(replies: []))
        guard case .reauthenticationRequired = await manager.currentStatus() else { Issue.record("not reauthenticationRequired"); return }
        // when
        try await manager.adopt(ChappieAuthFixtures.credential(email: "again@example.com"))
        // then
        #expect(try await store.loadCredential(for: Self.key)?.reauthenticationReason == nil)
        guard case .signedIn(let info) = await Self.manager(store, ScriptedTransport(replies: [])).currentStatus() else {
            Issue.record("not signed in after a new sign-in"); return
        }
        #expect(info.email == "again@example.com")
    }

    @Test("the mark is not written over a credential that changed meanwhile (another sign-in, another process's refresh)")
    func changedCredentialIsLeftAlone() async throws {
        let store = ChappieInMemoryCredentialStore()
        let newer = ChappieAuthFixtures.credential()
        try await store.saveCredential(newer, for: Self.key)
        await ReauthenticationMarker.persist(reason: "refused", rejectedRefreshToken: "rt_an_older_one", store: store, key: Self.key, logger: .silent)
        #expect(try await store.loadCredential(for: Self.key) == newer)
    }

    @Test("the mark round-trips through Codable and never prints a token")
    func markIsCodableAndRedacted() throws {
        let marked = ChappieAuthFixtures.credential().markingReauthenticationRequired("refused (HTTP 401)")
        let decoded = try ChappieCredential(storageData: marked.encodedForStorage())
        #expect(decoded == marked)
        #expect(decoded.reauthenticationReason == "refused (HTTP 401)")
        var dumped = ""
        dump(marked, to: &dumped)
        for text in [String(describing: marked), String(reflecting: marked), dumped] {
            #expect(!text.contains(marked.accessTokenForTests) && !text.contains(marked.refreshTokenForTests!) && !text.contains(marked.idTokenForTests))
        }
        #expect(String(describing: marked).contains("reauthenticationRequired: true"))
    }
}

@MainActor
@Suite("Auth session: the file store reads at once")
struct FileStoreRestoreTests {
    @Test("a returning user of the file store (Linux's default) is signed in from the first frame, never restoring")
    func fileStoreSignedInAtOnce() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "chappie-restore-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = ChappieConfiguration(keychainAccount: "file", credentialStore: ChappieFileCredentialStore(directory: folder))
        try await configuration.credentialStore.saveCredential(ChappieAuthFixtures.credential(), for: configuration.credentialKey)
        let session = ChappieAuthSession(configuration: configuration)
        #expect(session.state == .signedIn)
        #expect(session.accountInfo?.email == "tester@example.com")
    }
}
