@testable import ChappieCore
@testable import ChappieSDKTesting
@testable import ChappieTransport
import Foundation
import Testing

/// A browser stand-in: records the authorize URL, then answers it the way a test asks.
private final class TestBrowser: @unchecked Sendable {
    let urls = LockedBox<[URL]>([])
    let action: @Sendable (URL) async throws -> Void

    init(_ action: @escaping @Sendable (URL) async throws -> Void) { self.action = action }

    var opener: ChappieBrowserOpener {
        ChappieBrowserOpener { [self] url in
            urls.withLock { $0.append(url) }
            try await action(url)
        }
    }
    var last: URL? { urls.withLock { $0.last } }
}

/// A browser that approves at once: the issuer's redirect reaches the listener.
private func approving(_ issuer: SIWCTestIssuer, includeClientID: Bool? = nil) -> TestBrowser {
    TestBrowser { url in
        issuer.noteAuthorize(url)
        let target = issuer.approvalCallback(for: url, includeClientID: includeClientID)
        Task.detached { _ = await browserRequest(port: redirectPort(url), target: target) }
    }
}

@MainActor
private func session(_ issuer: SIWCTestIssuer, account: String = "default",
                     store: ChappieInMemoryCredentialStore = ChappieInMemoryCredentialStore(),
                     time: ChappieTimeSource = .system) -> ChappieAuthSession {
    ChappieAuthSession(configuration: issuer.configuration(account: account, store: store), transport: issuer.transport, timeSource: time)
}

@Suite("Sign in with ChatGPT: the flow")
@MainActor
struct SignInWithChatGPTFlowTests {
    @Test("a first sign-in registers with dynamic_agent_client, saves the issued id and signs in with plan usage")
    func firstSignIn() async throws {
        // given
        let issuer = SIWCTestIssuer()
        let store = ChappieInMemoryCredentialStore()
        let auth = session(issuer, store: store)
        let browser = approving(issuer)
        // when
        let result = try await auth.signInWithChatGPT(appName: "Test App", timeout: .seconds(30), openURL: browser.opener)
        // then
        #expect(auth.state == .signedIn)
        #expect(result.planUsageEnabled)
        #expect(result.showsPlanUsageNotice)
        #expect(result.account.email == "user@example.com")
        #expect(result.registrationLabel == "user@example.com")
        let query = SIWCTestIssuer.query(try #require(browser.last))
        #expect(query["client_id"] == "dynamic_agent_client")
        #expect(query["agent_name_hint"] == "Test App")
        #expect(query["ext_agent_host_id"]?.hasPrefix("urn:uuid:") == true)
        #expect(query["response_type"] == "code")
        #expect(query["scope"] == "openid profile email offline_access resource.invoke chatgpt.tokens.use.direct")
        #expect(query["resource"] == "https://api.openai.com/v1")
        #expect(query["code_challenge_method"] == "S256")
        #expect(query["code_challenge"]?.count == 43)
        #expect(query["state"]?.count == 43 && query["nonce"]?.count == 43)
        #expect(query["prompt"] == nil)
        #expect(query["redirect_uri"]?.hasPrefix("http://127.0.0.1:") == true && query["redirect_uri"]?.hasSuffix("/auth/callback") == true)
        let exchange = try #require(await issuer.transport.requests(endingWith: "/oauth/token").first)
        #expect(exchange.header("Content-Type") == "application/x-www-form-urlencoded")
        let form = SIWCTestIssuer.form(exchange.bodyText)
        #expect(form["grant_type"] == "authorization_code")
        #expect(form["client_id"] == "oaiapp_test_0001")
        #expect(form["redirect_uri"] == query["redirect_uri"])
        #expect(form["resource"] == query["resource"])
        #expect(AuthorizationRequest.challenge(for: form["code_verifier"] ?? "") == query["code_challenge"])
        let stored = try #require(try await store.loadCredential(for: auth.configuration.credentialKey))
        #expect(stored.route == .signInWithChatGPT)
        #expect(stored.clientID == "oaiapp_test_0001")
        #expect(stored.planUsageEnabled)
    }

    @Test("the second sign-in reuses the issued client id and host id, without agent_name_hint, with login_hint")
    func returningSignIn() async throws {
        let issuer = SIWCTestIssuer()
        let store = ChappieInMemoryCredentialStore()
        let auth = session(issuer, store: store)
        let browser = approving(issuer)
        try await auth.signInWithChatGPT(appName: "Test App", timeout: .seconds(30), openURL: browser.opener)
        let first = SIWCTestIssuer.query(try #require(browser.last))
        try await auth.signOut()
        // when
        try await auth.signInWithChatGPT(appName: "Test App", timeout: .seconds(30), openURL: browser.opener)
        // then
        let second = SIWCTestIssuer.query(try #require(browser.last))
        #expect(second["client_id"] == "oaiapp_test_0001")
        #expect(second["agent_name_hint"] == nil)
        #expect(second["ext_agent_host_id"] == first["ext_agent_host_id"])
        #expect(second["login_hint"] == "user@example.com")
        #expect(second["id_token_hint"] == nil)
        #expect(second["state"] != first["state"])
        #expect(try auth.signInWithChatGPTRegistrations().count == 1)
    }

    @Test("the first-use notice shows once: after acknowledging it, a later sign-in does not show it")
    func noticeOnce() async throws {
        let issuer = SIWCTestIssuer()
        let auth = session(issuer)
        let browser = approving(issuer)
        let first = try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: browser.opener)
        #expect(first.showsPlanUsageNotice)
        try auth.acknowledgePlanUsageNotice()
        let second = try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: browser.opener)
        #expect(!second.showsPlanUsageNotice)
    }

    @Test("enablePlanUsage adds prompt=consent; a grant without chatgpt.tokens.use.direct signs in with plan usage off")
    func planUsageNotGranted() async throws {
        let issuer = SIWCTestIssuer()
        issuer.update { $0.grantedScope = "openid profile email offline_access" }
        let auth = session(issuer)
        let browser = approving(issuer)
        let result = try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: browser.opener)
        #expect(!result.planUsageEnabled)
        #expect(!result.showsPlanUsageNotice)
        #expect(auth.accountInfo?.planUsageEnabled == false)
        // when the user asks to enable it
        issuer.update { $0.grantedScope = "openid profile email offline_access resource.invoke chatgpt.tokens.use.direct" }
        let enabled = try await auth.signInWithChatGPT(appName: "A", enablePlanUsage: true, timeout: .seconds(30), openURL: browser.opener)
        #expect(SIWCTestIssuer.query(try #require(browser.last))["prompt"] == "consent")
        #expect(enabled.planUsageEnabled)
        #expect(auth.accountInfo?.planUsageEnabled == true)
    }

    @Test("a callback with a wrong or missing state is answered 400 and the attempt goes on; a second callback is refused")
    func wrongStateThenValid() async throws {
        let issuer = SIWCTestIssuer()
        let auth = session(issuer)
        let statuses = LockedBox<[Int]>([])
        let browser = TestBrowser { url in
            issuer.noteAuthorize(url)
            let port = redirectPort(url)
            let valid = issuer.approvalCallback(for: url)
            let wrong = await browserRequest(port: port, target: "/auth/callback?code=x&state=wrong&client_id=oaiapp_x")
            let missing = await browserRequest(port: port, target: "/auth/callback?code=x&client_id=oaiapp_x")
            let twice = await browserRequest(port: port, target: valid + "&state=again")
            statuses.withLock { $0 = [wrong.status, missing.status, twice.status] }
            Task.detached { _ = await browserRequest(port: port, target: valid) }
        }
        try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: browser.opener)
        #expect(auth.state == .signedIn)
        #expect(statuses.withLock { $0 } == [400, 400, 400])
        let exchanges = await issuer.transport.requests(endingWith: "/oauth/token")
        #expect(exchanges.count == 1)
    }

    @Test("requests with another Host, a foreign Origin, another method or path are refused and do not end the attempt")
    func foreignRequests() async throws {
        let issuer = SIWCTestIssuer()
        let auth = session(issuer)
        let statuses = LockedBox<[Int]>([])
        let browser = TestBrowser { url in
            issuer.noteAuthorize(url)
            let port = redirectPort(url)
            let valid = issuer.approvalCallback(for: url)
            let results = [
                await browserRequest(port: port, target: valid, host: "localhost:\(port)").status,
                await browserRequest(port: port, target: valid, host: "evil.example").status,
                await browserRequest(port: port, target: valid, extraHeaders: ["Origin: https://evil.example"]).status,
                await browserRequest(port: port, target: valid, method: "POST").status,
                await browserRequest(port: port, target: valid.replacingOccurrences(of: "/auth/callback", with: "/callback")).status,
            ]
            statuses.withLock { $0 = results }
            let good = await browserRequest(port: port, target: valid)
            statuses.withLock { $0.append(good.status) }
            #expect(good.text.contains("Cache-Control: no-store"))
            #expect(good.text.contains("Referrer-Policy: no-referrer"))
            #expect(good.text.contains("Content-Security-Policy: default-src 'none'"))
            #expect(!good.text.contains("ac_test_code"))
        }
        try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: browser.opener)
        #expect(statuses.withLock { $0 } == [421, 421, 403, 405, 404, 200])
    }

    @Test("a second valid callback after the accepted one is refused")
    func secondCallback() async throws {
        let issuer = SIWCTestIssuer()
        let second = LockedBox<Int>(0)
        let gate = AsyncStream<Void>.makeStream()
        let browser = TestBrowser { url in
            issuer.noteAuthorize(url)
            let port = redirectPort(url)
            let valid = issuer.approvalCallback(for: url)
            _ = await browserRequest(port: port, target: valid)
            let again = await browserRequest(port: port, target: valid)
            second.withLock { $0 = again.status }
            gate.continuation.finish()
        }
        let auth = session(issuer)
        try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: browser.opener)
        for await _ in gate.stream {}
        #expect(second.withLock { $0 } == 409)
        #expect(await issuer.transport.requests(endingWith: "/oauth/token").count == 1)
    }

    @Test("a new registration without client_id is incomplete: nothing is saved and no code is exchanged")
    func registrationWithoutClientID() async throws {
        let issuer = SIWCTestIssuer()
        let store = ChappieInMemoryCredentialStore()
        let auth = session(issuer, store: store)
        let error = await #expect(throws: ChappieAuthError.self) {
            try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: approving(issuer, includeClientID: false).opener)
        }
        #expect(error == .registrationIncomplete)
        #expect(error?.recoverySuggestion != nil)
        #expect(await issuer.transport.requests(endingWith: "/oauth/token").isEmpty)
        #expect(try auth.signInWithChatGPTRegistrations().isEmpty)
        #expect(try await store.loadCredential(for: auth.configuration.credentialKey) == nil)
    }

    @Test("a different client_id on re-authorization is rejected and the registration is not replaced")
    func differentClientID() async throws {
        let issuer = SIWCTestIssuer()
        let auth = session(issuer)
        try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: approving(issuer).opener)
        issuer.update { $0.issuedClientID = "oaiapp_other_9999" }
        let error = await #expect(throws: ChappieAuthError.self) {
            try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: approving(issuer, includeClientID: true).opener)
        }
        #expect(error == .clientMismatch)
        #expect(try auth.signInWithChatGPTRegistrations().map(\.clientID) == ["oaiapp_test_0001"])
        #expect(auth.state == .signedIn)
    }

    @Test("error=access_denied stops without an exchange and keeps an existing sign-in")
    func accessDenied() async throws {
        let issuer = SIWCTestIssuer()
        let auth = session(issuer)
        try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: approving(issuer).opener)
        let exchangesBefore = await issuer.transport.requests(endingWith: "/oauth/token").count
        let denying = TestBrowser { url in
            let state = SIWCTestIssuer.query(url)["state"] ?? ""
            let port = redirectPort(url)
            Task.detached { _ = await browserRequest(port: port, target: "/auth/callback?error=access_denied&state=\(state)") }
        }
        let error = await #expect(throws: ChappieAuthError.self) {
            try await auth.signInWithChatGPT(appName: "A", enablePlanUsage: true, timeout: .seconds(30), openURL: denying.opener)
        }
        #expect(error == .consentDenied)
        #expect(await issuer.transport.requests(endingWith: "/oauth/token").count == exchangesBefore)
        #expect(auth.state == .signedIn)
    }

    @Test("invalid_grant on the exchange keeps the issued id: the next attempt is a re-authorization, never a new registration")
    func invalidGrantOnExchange() async throws {
        let issuer = SIWCTestIssuer()
        issuer.update { $0.exchangeError = (400, "invalid_grant") }
        let auth = session(issuer)
        let browser = approving(issuer)
        let error = await #expect(throws: ChappieAuthError.self) {
            try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: browser.opener)
        }
        #expect(error == .authorizationCodeRejected)
        issuer.update { $0.exchangeError = nil }
        try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: browser.opener)
        let second = SIWCTestIssuer.query(try #require(browser.last))
        #expect(second["client_id"] == "oaiapp_test_0001")
        #expect(second["agent_name_hint"] == nil)
    }
}

@Suite("Sign in with ChatGPT: ID token verification")
@MainActor
struct SignInWithChatGPTIDTokenTests {
    nonisolated static let cases: [(String, @Sendable (inout SIWCTestIssuer.Settings) -> Void, ChappieAuthError)] = [
        ("bad signature", { $0.signingKey = .other; $0.signingKid = TestSigningKey.primary.kid }, .invalidIDToken(.badSignature)),
        ("unknown kid", { $0.signingKey = .other }, .invalidIDToken(.unknownKey)),
        ("wrong iss", { $0.editClaims = { $0["iss"] = "https://evil.example" } }, .invalidIDToken(.wrongIssuer)),
        ("wrong aud", { $0.editClaims = { $0["aud"] = "oaiapp_someone_else" } }, .invalidIDToken(.wrongAudience)),
        ("wrong azp", { $0.editClaims = { $0["azp"] = "oaiapp_someone_else" } }, .invalidIDToken(.wrongAuthorizedParty)),
        ("wrong nonce", { $0.editClaims = { $0["nonce"] = "not-the-nonce" } }, .invalidIDToken(.wrongNonce)),
        ("expired", { $0.editClaims = { $0["exp"] = .number(Date().timeIntervalSince1970 - 60) } }, .invalidIDToken(.expired)),
        ("issued in the future", { $0.editClaims = { $0["iat"] = .number(Date().timeIntervalSince1970 + 600) } }, .invalidIDToken(.issuedInFuture)),
    ]

    @Test("a bad ID token is rejected and nothing is saved", arguments: 0..<8)
    func badIDToken(index: Int) async throws {
        let (_, change, expected) = Self.cases[index]
        let issuer = SIWCTestIssuer()
        issuer.update(change)
        let store = ChappieInMemoryCredentialStore()
        let auth = session(issuer, store: store)
        let error = await #expect(throws: ChappieAuthError.self) {
            try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: approving(issuer).opener)
        }
        #expect(error == expected)
        #expect(try await store.loadCredential(for: auth.configuration.credentialKey) == nil)
        #expect(auth.state == .signedOut)
    }

    @Test("aud as a plain string is accepted")
    func audienceString() async throws {
        let issuer = SIWCTestIssuer()
        issuer.update { $0.editClaims = { $0["aud"] = "oaiapp_test_0001" } }
        let auth = session(issuer)
        try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: approving(issuer).opener)
        #expect(auth.state == .signedIn)
    }

    @Test("an unknown kid refetches the key set once: a rotated key is accepted")
    func rotatedKey() async throws {
        let issuer = SIWCTestIssuer()
        let auth = session(issuer)
        try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: approving(issuer).opener)
        issuer.update { $0.publishedKeys = [.primary, .other]; $0.signingKey = .other }
        try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: approving(issuer).opener)
        #expect(await issuer.transport.requests(endingWith: "/jwks.json").count == 2)
    }

    @Test("another sub on re-authorization is an account mismatch; the saved sign-in is kept")
    func anotherSubject() async throws {
        let issuer = SIWCTestIssuer()
        let store = ChappieInMemoryCredentialStore()
        let auth = session(issuer, store: store)
        try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: approving(issuer).opener)
        let before = try await store.loadCredential(for: auth.configuration.credentialKey)
        issuer.update { $0.subject = "someone-else" }
        let error = await #expect(throws: ChappieAuthError.self) {
            try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: approving(issuer).opener)
        }
        #expect(error == .accountMismatch)
        #expect(try await store.loadCredential(for: auth.configuration.credentialKey) == before)
    }

    @Test("a discovery outage or a JWKS outage is retryable and keeps the saved sign-in", arguments: [true, false])
    func outage(discovery: Bool) async throws {
        let issuer = SIWCTestIssuer()
        let store = ChappieInMemoryCredentialStore()
        let auth = session(issuer, store: store)
        try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: approving(issuer).opener)
        JWKSCache.forget(issuer.issuer.appending(path: ".well-known/jwks.json"))
        issuer.update { if discovery { $0.discoveryDown = true } else { $0.jwksDown = true } }
        let error = await #expect(throws: ChappieAuthError.self) {
            try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: approving(issuer).opener)
        }
        guard case .identityVerificationUnavailable? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(auth.state == .signedIn)
        #expect(try await store.loadCredential(for: auth.configuration.credentialKey) != nil)
    }
}

@Suite("Sign in with ChatGPT: listener, timeout, cancellation, browser")
@MainActor
struct SignInWithChatGPTListenerTests {
    @Test("the callback never arriving ends with callbackTimedOut, and the listener is closed")
    func timeout() async throws {
        let issuer = SIWCTestIssuer()
        let virtual = ChappieVirtualTime()
        let auth = session(issuer, time: virtual.timeSource)
        let port = LockedBox<UInt16>(0)
        let browser = TestBrowser { url in
            port.withLock { $0 = redirectPort(url) }
            virtual.advance(by: 601)
        }
        let error = await #expect(throws: ChappieAuthError.self) {
            try await auth.signInWithChatGPT(appName: "A", openURL: browser.opener)
        }
        #expect(error == .callbackTimedOut)
        #expect(await browserRequest(port: port.withLock { $0 }, target: "/auth/callback").status == 0)
    }

    @Test("cancelling the sign-in ends the listener")
    func cancellation() async throws {
        let issuer = SIWCTestIssuer()
        let auth = session(issuer)
        let opened = AsyncStream<UInt16>.makeStream()
        let browser = TestBrowser { url in opened.continuation.yield(redirectPort(url)) }
        let task = Task { try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(600), openURL: browser.opener) }
        var port: UInt16 = 0
        for await value in opened.stream { port = value; break }
        #expect(await browserRequest(port: port, target: "/nothing").status == 404)
        task.cancel()
        let result = await task.result
        #expect(throws: ChappieAuthError.cancelled) { try result.get() }
        #expect(await browserRequest(port: port, target: "/auth/callback").status == 0)
    }

    @Test("no browser available ends the sign-in with browserUnavailable and closes the listener")
    func noBrowser() async throws {
        struct NoBrowser: Error {}
        let issuer = SIWCTestIssuer()
        let auth = session(issuer)
        let browser = TestBrowser { _ in throw NoBrowser() }
        let error = await #expect(throws: ChappieAuthError.self) {
            try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: browser.opener)
        }
        guard case .browserUnavailable? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(await browserRequest(port: redirectPort(try #require(browser.last)), target: "/auth/callback").status == 0)
    }

    @Test("a taken preferred port falls back to a free one")
    func preferredPortTaken() async throws {
        let blocker = try RawTestServer(.neverAccept)
        defer { blocker.stop() }
        let issuer = SIWCTestIssuer()
        let auth = session(issuer)
        let browser = approving(issuer)
        try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: browser.opener, preferredPort: UInt16(blocker.port))
        let port = redirectPort(try #require(browser.last))
        #expect(port != UInt16(blocker.port) && port != 0)
    }

    @Test("no token, code, verifier or ID token appears in the authorize URL, the errors or the session's descriptions")
    func noSecretsLeak() async throws {
        let issuer = SIWCTestIssuer()
        let sink = ChappieInMemoryLogSink()
        var configuration = issuer.configuration()
        configuration.logSink = sink
        let auth = ChappieAuthSession(configuration: configuration, transport: issuer.transport, timeSource: .system)
        let browser = approving(issuer)
        let result = try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: browser.opener)
        let exchange = try #require(await issuer.transport.requests(endingWith: "/oauth/token").first)
        let form = SIWCTestIssuer.form(exchange.bodyText)
        let secrets = [try #require(form["code"]), try #require(form["code_verifier"]), "at_siwc_secret", "rt_siwc_secret", "eyJ"]
        let stored = try #require(await auth.configuration.credentialStore.loadCredential(for: auth.configuration.credentialKey))
        let texts = [try #require(browser.last).absoluteString, "\(result)", String(reflecting: result), "\(auth.snapshot)",
                     "\(stored)", String(reflecting: stored), "\(sink.renderedLines)", "\(sink.events)"]
        for text in texts { for secret in secrets { #expect(!text.contains(secret), "\(secret) leaked") } }
    }
}

@Suite("Sign in with ChatGPT: refresh and sign-out")
@MainActor
struct SignInWithChatGPTRefreshTests {
    /// A caller's context two hours from now, when the access token has expired.
    private func later(_ auth: ChappieAuthSession, _ issuer: SIWCTestIssuer) -> CredentialContext {
        CredentialContext(configuration: auth.configuration, transport: issuer.transport,
                          time: ChappieTimeSource(now: { Date().addingTimeInterval(7200) }, sleep: { _ in }))
    }

    private func signedIn(_ issuer: SIWCTestIssuer, store: ChappieInMemoryCredentialStore) async throws -> ChappieAuthSession {
        let auth = session(issuer, store: store)
        try await auth.signInWithChatGPT(appName: "A", timeout: .seconds(30), openURL: approving(issuer).opener)
        return auth
    }

    @Test("a refresh posts a form with the issued client id and resource to the discovered endpoint, and saves the rotated token")
    func refreshRotates() async throws {
        let issuer = SIWCTestIssuer()
        let store = ChappieInMemoryCredentialStore()
        let auth = try await signedIn(issuer, store: store)
        let key = auth.configuration.credentialKey
        let before = try #require(try await store.loadCredential(for: key))
        let manager = CredentialManager(store: store, key: key)
        // when (two hours later: the access token has expired)
        _ = try? await manager.authorization(later(auth, issuer))
        // then
        let refresh = try #require(await issuer.transport.requests(endingWith: "/oauth/token").last)
        let form = SIWCTestIssuer.form(refresh.bodyText)
        #expect(refresh.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(form["grant_type"] == "refresh_token")
        #expect(form["client_id"] == "oaiapp_test_0001")
        #expect(form["refresh_token"] == before.refreshToken)
        #expect(form["resource"] == "https://api.openai.com/v1")
        #expect(form["scope"] == nil)
        let after = try #require(try await store.loadCredential(for: key))
        #expect(after.refreshToken != before.refreshToken)
        #expect(after.route == .signInWithChatGPT && after.clientID == "oaiapp_test_0001")
    }

    nonisolated static let terminalCodes = ["invalid_grant", "invalid_refresh_token", "token_expired", "refresh_token_expired",
                                "refresh_token_invalidated", "refresh_token_reused", "invalid_client"]

    @Test("every terminal refresh error of the spec requires a new sign-in; the registration is kept", arguments: terminalCodes)
    func terminalRefresh(code: String) async throws {
        let issuer = SIWCTestIssuer()
        let store = ChappieInMemoryCredentialStore()
        let auth = try await signedIn(issuer, store: store)
        issuer.update { $0.refreshError = (400, code) }
        let manager = CredentialManager(store: store, key: auth.configuration.credentialKey)
        await #expect(throws: ChappieClientError.self) {
            _ = try await manager.authorization(later(auth, issuer))
        }
        guard case .reauthenticationRequired = await manager.currentStatus() else { Issue.record("not terminal"); return }
        #expect(try auth.signInWithChatGPTRegistrations().first?.clientID == "oaiapp_test_0001")
    }

    @Test("a 5xx refresh error keeps the credentials")
    func transientRefresh() async throws {
        let issuer = SIWCTestIssuer()
        let store = ChappieInMemoryCredentialStore()
        let auth = try await signedIn(issuer, store: store)
        issuer.update { $0.refreshError = (503, "temporarily_unavailable") }
        let manager = CredentialManager(store: store, key: auth.configuration.credentialKey)
        _ = try? await manager.authorization(later(auth, issuer))
        guard case .signedIn = await manager.currentStatus() else { Issue.record("credentials dropped"); return }
    }

    @Test("sign-out revokes with a form at the discovered endpoint and keeps the registration and host id")
    func signOutRevokes() async throws {
        let issuer = SIWCTestIssuer()
        let store = ChappieInMemoryCredentialStore()
        let auth = try await signedIn(issuer, store: store)
        let refreshToken = try #require(try await store.loadCredential(for: auth.configuration.credentialKey)?.refreshToken)
        let result = try await auth.signOutReportingRevocation()
        #expect(result.remoteDisconnectConfirmed)
        #expect(result.unconfirmedNotice == nil)
        let revoke = try #require(await issuer.transport.requests(endingWith: "/oauth/revoke").first)
        let form = SIWCTestIssuer.form(revoke.bodyText)
        #expect(form == ["token": refreshToken, "token_type_hint": "refresh_token", "client_id": "oaiapp_test_0001"])
        #expect(auth.state == .signedOut)
        #expect(try auth.signInWithChatGPTRegistrations().count == 1)
    }

    @Test("a failing revocation still clears the local tokens and says the remote disconnect is unconfirmed")
    func revocationFails() async throws {
        let issuer = SIWCTestIssuer()
        let store = ChappieInMemoryCredentialStore()
        let auth = try await signedIn(issuer, store: store)
        issuer.update { $0.revokeFails = true }
        let result = try await auth.signOutReportingRevocation()
        #expect(!result.remoteDisconnectConfirmed)
        #expect(result.unconfirmedNotice != nil)
        #expect(try await store.loadCredential(for: auth.configuration.credentialKey) == nil)
        #expect(await issuer.transport.requests(endingWith: "/oauth/revoke").count == 2)
    }
}
