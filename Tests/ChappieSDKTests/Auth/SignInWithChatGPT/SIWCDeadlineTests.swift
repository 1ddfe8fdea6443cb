import Foundation
import Testing
@testable import ChappieCore
@testable import ChappieSDKTesting

/// Each request of Sign in with ChatGPT to a server that accepts it and never answers ends at its
/// overall deadline (60 s for discovery, the signing keys, the code exchange and a refresh; 15 s
/// for a revocation), as on the device-code route. The deadlines fire on cue
/// (``StalledServer``): no real time passes.
@Suite("Sign in with ChatGPT: deadlines of the issuer's requests", .timeLimit(.minutes(1)))
@MainActor
struct SIWCDeadlineTests {
    /// A browser that approves at once: the issuer's redirect reaches the listener.
    private func approving(_ issuer: SIWCTestIssuer) -> ChappieBrowserOpener {
        ChappieBrowserOpener { url in
            issuer.noteAuthorize(url)
            let target = issuer.approvalCallback(for: url)
            Task.detached { _ = await browserRequest(port: redirectPort(url), target: target) }
        }
    }

    private func session(_ issuer: SIWCTestIssuer, store: ChappieInMemoryCredentialStore) -> ChappieAuthSession {
        ChappieAuthSession(configuration: issuer.configuration(store: store), transport: issuer.transport, timeSource: .system)
    }

    /// Runs `body` with the request deadlines of `issuer`'s stalled server.
    private func withStalledDeadlines<Result>(_ issuer: SIWCTestIssuer, _ body: () async throws -> Result) async rethrows -> Result {
        let stalled = issuer.stalled
        return try await HTTPDeadline.sleep.withValue({ try await stalled.deadline($0) }, operation: body)
    }

    nonisolated static let signInPaths = ["/.well-known/openid-configuration", "/.well-known/jwks.json", "/api/accounts/oauth/token"]

    @Test("a sign-in whose discovery, signing keys or code exchange never answers fails after 60 s with a retryable error; nothing is saved",
          arguments: signInPaths)
    func signInStalls(path: String) async throws {
        // given
        let issuer = SIWCTestIssuer()
        issuer.update { $0.stalledPath = path }
        let store = ChappieInMemoryCredentialStore()
        let auth = session(issuer, store: store)
        // when
        let error = await withStalledDeadlines(issuer) {
            await #expect(throws: ChappieAuthError.self) {
                try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: approving(issuer))
            }
        }
        // then
        #expect(issuer.stalled.firedDeadlines == [.seconds(60)])
        switch error {
        case .identityVerificationUnavailable? where path.hasPrefix("/.well-known/"): break
        case .network(let message)? where path == "/api/accounts/oauth/token": #expect(message.contains("60 seconds"))
        default: Issue.record("unexpected error \(String(describing: error))")
        }
        #expect(try await store.loadCredential(for: auth.configuration.credentialKey) == nil)
        #expect(await issuer.transport.requests(endingWith: path).count == 1)
    }

    @Test("a refresh that never answers fails after 60 s as network trouble and keeps the credentials")
    func refreshStalls() async throws {
        // given: signed in, two hours later
        let issuer = SIWCTestIssuer()
        let store = ChappieInMemoryCredentialStore()
        let auth = session(issuer, store: store)
        try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: approving(issuer))
        let key = auth.configuration.credentialKey
        let before = try #require(try await store.loadCredential(for: key))
        issuer.update { $0.stalledPath = "/api/accounts/oauth/token" }
        let manager = CredentialManager(store: store, key: key)
        let later = CredentialContext(configuration: auth.configuration, transport: issuer.transport,
                                      time: ChappieTimeSource(now: { Date().addingTimeInterval(7200) }, sleep: { _ in }))
        // when
        let error = await withStalledDeadlines(issuer) {
            await #expect(throws: ChappieClientError.self) { _ = try await manager.authorization(later) }
        }
        // then
        #expect(issuer.stalled.firedDeadlines == [.seconds(60)])
        guard case .network(_, let mayHaveReachedServer)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(mayHaveReachedServer)
        guard case .signedIn = await manager.currentStatus() else { Issue.record("the credentials were dropped"); return }
        #expect(try await store.loadCredential(for: key)?.refreshToken == before.refreshToken)
    }

    @Test("a revocation that never answers gives up after 15 s: signed out locally, the remote disconnect unconfirmed")
    func revocationStalls() async throws {
        // given
        let issuer = SIWCTestIssuer()
        let store = ChappieInMemoryCredentialStore()
        let auth = session(issuer, store: store)
        try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: approving(issuer))
        issuer.update { $0.stalledPath = "/api/accounts/oauth/revoke" }
        // when
        let result = try await withStalledDeadlines(issuer) { try await auth.signOutReportingRevocation() }
        // then
        #expect(issuer.stalled.firedDeadlines == [.seconds(15)])
        #expect(!result.remoteDisconnectConfirmed)
        #expect(result.unconfirmedNotice != nil)
        #expect(auth.state == .signedOut)
        #expect(try await store.loadCredential(for: auth.configuration.credentialKey) == nil)
        #expect(await issuer.transport.requests(endingWith: "/oauth/revoke").count == 1)
        #expect(try auth.signInWithChatGPTRegistrations().count == 1)
    }
}
