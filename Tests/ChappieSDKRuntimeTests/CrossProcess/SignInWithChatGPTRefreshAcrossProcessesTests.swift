import ChappieEmulator
@_spi(ChappieTesting) @testable import ChappieCore
import ChappieTestSupport
import Foundation
import Testing

/// Two processes of one app (say the app and its extension) share one file credential store and
/// hold the same Sign in with ChatGPT credential when the issuer expires its access token. Both
/// get a 401 and set out to refresh. The emulator rotates refresh tokens with reuse detection:
/// the refresh token the first process spends is dead afterwards, and presenting it again
/// answers `refresh_token_reused` and ends the whole token family, the winner's new tokens
/// included. So the second process must not spend it: under the store's cross-process lock it
/// re-reads the store and uses the tokens the first one saved. The children are this test binary
/// running ``SignInWithChatGPTRefreshChildProcess`` (see ``ChildProcess``).
@Suite("Sign in with ChatGPT refresh across processes")
struct SignInWithChatGPTRefreshAcrossProcessesTests {
    @Test("two processes that both got a 401 refresh once between them; neither is signed out, and the family lives on",
          .timeLimit(.minutes(3)))
    func twoProcessesOneRotation() async throws {
        try await withTemporaryFolder { folder in
            try await ChappieEmulator.with(.init()) { emulator in
                // given: a Sign in with ChatGPT credential in a store both processes use
                let tokens = await emulator.issueSignInWithChatGPTTokens()
                let store = ChappieFileCredentialStore(directory: folder)
                let key = SignInWithChatGPTRefreshChildProcess.configuration(issuer: emulator.baseURL, store: store).credentialKey
                let original = ChappieCredential(
                    idToken: tokens.idToken, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
                    expiresIn: TimeInterval(tokens.expiresIn), obtainedAt: Date(), route: .signInWithChatGPT, clientID: tokens.clientID,
                    grantedScopes: tokens.scope.split(separator: " ").map(String.init))
                try await store.saveCredential(original, for: key)
                await emulator.expireSignInWithChatGPTAccessTokens()

                // This process holds the refresh lock until both children are about to take it,
                // so both hold the old tokens when the first of them refreshes.
                let (held, heldContinuation) = AsyncStream<Void>.makeStream()
                let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
                let holder = Task {
                    try await store.withRefreshLock(for: key) {
                        heldContinuation.yield()
                        for await _ in release {}
                    }
                }
                for await _ in held { break }
                let arguments = ["STORE": folder.path, "ISSUER": emulator.baseURL.absoluteString]
                let children = try ["A", "B"].map { _ in
                    try ChildProcess(suite: "SignInWithChatGPTRefreshChildProcess", role: "siwcModels", arguments: arguments)
                }

                // when: both got a 401 and wait for the lock; then it is free
                for child in children {
                    let locking = try await child.firstLine { $0 == "locking" || $0.hasPrefix("failed") }
                    #expect(locking == "locking", "the child did not reach the refresh lock: \(locking ?? "no output")")
                }
                releaseContinuation.finish()
                try await holder.value

                // then: both listed the models, neither was told to sign in again
                for child in children {
                    let outcome = try await child.firstLine { $0.hasPrefix("models ") || $0.hasPrefix("failed") }
                    #expect(outcome?.hasPrefix("models ") == true, "child: \(outcome ?? "no output")")
                    let exit = try await child.waitForExit()
                    #expect(!exit.killedBySignal && exit.status == 0)
                }
                let refreshes = await emulator.recordedRequests().filter {
                    $0.path == "/api/accounts/oauth/token" && String(decoding: $0.body, as: UTF8.self).contains("grant_type=refresh_token")
                }
                #expect(refreshes.count == 1)
                // the store holds the rotated tokens, not a sign-in-again marker
                let stored = try #require(try await store.loadCredential(for: key))
                #expect(stored.reauthenticationReason == nil)
                #expect(stored.refreshToken != original.refreshToken)
                // and the family was not ended: one more process renews with the saved token
                await emulator.expireSignInWithChatGPTAccessTokens()
                let configuration = SignInWithChatGPTRefreshChildProcess.configuration(issuer: emulator.baseURL, store: store)
                #expect(try await !ChappieClient(configuration: configuration).models().isEmpty)
                #expect(try await store.loadCredential(for: key)?.refreshToken != stored.refreshToken)
            }
        }
    }
}

/// The child side of ``SignInWithChatGPTRefreshAcrossProcessesTests``: runs only in a child
/// process started with its role, and is skipped in a normal test run.
@Suite("Child of the Sign in with ChatGPT cross-process refresh test (runs only when started by it)")
struct SignInWithChatGPTRefreshChildProcess {
    /// The configuration both processes use: the emulator at `issuer`, the shared `store`.
    static func configuration(issuer: URL, store: any ChappieCredentialStore) -> ChappieConfiguration {
        ChappieConfiguration(endpoints: ChappieEndpoints(authIssuer: issuer, backend: issuer.appending(path: "backend-api")),
                             credentialStore: store)
    }

    @Test("list the models with the shared credential", .enabled(if: ChildProcess.role == "siwcModels"))
    func listModels() async throws {
        let folder = URL(fileURLWithPath: try #require(ChildProcess.argument("STORE")))
        let issuer = try #require(ChildProcess.argument("ISSUER").flatMap(URL.init(string:)))
        let store = LockReportingStore(base: ChappieFileCredentialStore(directory: folder))
        do {
            let models = try await ChappieClient(configuration: Self.configuration(issuer: issuer, store: store)).models()
            ChildProcess.report("models \(models.count)")
        } catch {
            ChildProcess.report("failed \(error)")
            throw error
        }
    }
}

/// A file store that reports `locking` each time the SDK is about to take its refresh lock, so
/// the parent knows the child holds the old tokens and wants to refresh.
private struct LockReportingStore: ChappieCredentialStore {
    let base: ChappieFileCredentialStore

    var identity: String { base.identity }

    func loadCredential(for key: ChappieCredentialKey) async throws -> ChappieCredential? { try await base.loadCredential(for: key) }

    func saveCredential(_ credential: ChappieCredential, for key: ChappieCredentialKey) async throws {
        try await base.saveCredential(credential, for: key)
    }

    func deleteCredential(for key: ChappieCredentialKey) async throws { try await base.deleteCredential(for: key) }

    func withRefreshLock<Result: Sendable>(for key: ChappieCredentialKey, _ body: @Sendable () async throws -> Result) async throws -> Result {
        ChildProcess.report("locking")
        return try await base.withRefreshLock(for: key, body)
    }
}
