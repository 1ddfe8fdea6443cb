import ChappieSDK
import ChappieSDKTesting
import Foundation
import Testing

// Samples of https://docs.chappiesdk.com/authentication/multi-account,
// https://docs.chappiesdk.com/configuration/keychain and https://docs.chappiesdk.com/security, as
// published (the SwiftUI ones are in SwiftUI/). Lines ending in `// +test` are not in the docs;
// lines with `// docs:` differ from them, saying why.

/// Multi-account, "One configuration per user".
@MainActor
func multiAccountOneConfigurationPerUser() -> (ChappieAuthSession, ChappieClient) {
    let config = ChappieConfiguration(
        keychainAccount: currentUser.id
    )

    let authSession = Chappie.authSession(configuration: config)
    let client = Chappie.client(configuration: config)
    return (authSession, client)  // +test
}

/// Multi-account, "When the user signs out of your app, call authSession.signOut()", from
/// synchronous code such as a button action.
@MainActor
func multiAccountSignOut(authSession: ChappieAuthSession) {
    Task { try? await authSession.signOut() }  // docs: `authSession.signOut()`; it is async throws
}

/// Multi-account, "Sharing credentials across app extensions".
@MainActor
func multiAccountSharedAccessGroup() -> (ChappieConfiguration, ChappieAuthSession, ChappieClient) {
    let config = ChappieConfiguration(
        keychainAccount: currentUser.id,
        keychainAccessGroup: "TEAMID.com.example.shared"
    )

    let authSession = Chappie.authSession(configuration: config)
    let client = Chappie.client(configuration: config)
    return (config, authSession, client)  // +test
}

/// Keychain, "Setting a custom Keychain service" (the page is cut after `let config`).
func keychainCustomService() -> ChappieConfiguration {
    let config = ChappieConfiguration(keychainService: "com.myapp.chappie")  // docs: reconstructed from the prose
    return config  // +test
}

/// Security, "Credential refresh and reauthentication": what to do with the state (the page's
/// own code is cut; this is the switch the prose describes).
@MainActor
func securityNeedsSignIn(authSession: ChappieAuthSession) -> Bool {
    switch authSession.state {
    case .reauthenticationRequired, .signedOut: true
    case .restoring, .signingIn, .signedIn: false
    }
}

@Suite("Published docs: Authentication and Keychain")
struct AuthenticationSampleTests {
    @Test("each user has a slot of their own: sign in, talk, sign out; the other slot is untouched")
    @MainActor
    func oneConfigurationPerUser() async throws {
        try await DocsEnvironment.run { docs in
            let (authSession, client) = multiAccountOneConfigurationPerUser()
            await authSession.reload()
            #expect(authSession.state == .signedOut)
            #expect(securityNeedsSignIn(authSession: authSession))

            try await authSession.startDeviceCodeSignIn()
            #expect(authSession.state == .signedIn)
            #expect(authSession.accountInfo?.email != nil)
            await docs.emulator.scriptReplies(.text("Hello, user 42."))
            let reply = try await client.send("Hi")
            #expect(reply == "Hello, user 42.")

            var states = authSession.updates.makeAsyncIterator()
            multiAccountSignOut(authSession: authSession)
            while let snapshot = await states.next(), snapshot.state != .signedOut {}
            #expect(authSession.state == .signedOut)
            await #expect(throws: ChappieClientError.missingCredential) { _ = try await client.send("Still there?") }

            // The default slot, signed in by the environment, still works.
            await docs.emulator.scriptReplies(.text("Yes."))
            let otherSlot = try await Chappie.client().send("Still there?")
            #expect(otherSlot == "Yes.")
        }
    }

    @Test("an access group is part of the configuration; the session and the client share the slot")
    @MainActor
    func sharedAccessGroup() async throws {
        try await DocsEnvironment.run { docs in
            let (config, authSession, client) = multiAccountSharedAccessGroup()
            #expect(config.keychainAccessGroup == "TEAMID.com.example.shared")
            try await authSession.startDeviceCodeSignIn()
            await docs.emulator.scriptReplies(.text("Shared."))
            let reply = try await client.send("Hi")
            #expect(reply == "Shared.")
        }
    }

    @Test("a custom service is a separate namespace: the default service's sign-in is not visible there")
    @MainActor
    func customService() async throws {
        try await DocsEnvironment.run { _ in
            let config = keychainCustomService()
            #expect(config.keychainService == "com.myapp.chappie")
            #expect(config.keychainAccount == "default")
            let authSession = Chappie.authSession(configuration: config)
            await authSession.reload()
            #expect(authSession.state == .signedOut)
            #expect(Chappie.authSession().state != .signedOut)
        }
    }

    @Test("the Keychain defaults are the documented ones, but the service is the app's own")
    func keychainDefaults() {
        let config = ChappieConfiguration()
        // docs: "com.chappie.sdk"; the default is derived from the app (here the test runner's
        // executable), so two apps never share a credential slot by accident.
        #expect(config.keychainService == ProcessInfo.processInfo.processName + ".chappie")
        #expect(config.keychainService == ChappieConfiguration.defaultKeychainService)
        #expect(config.keychainAccount == "default")
        #expect(config.keychainAccessGroup == nil)
        #expect(config.keychainAccessibility == .whenUnlockedThisDeviceOnly)
    }

    @Test("a refusal of the token endpoint with 400, 401 or 403 requires signing in again", arguments: [400, 401, 403, 500])
    func requiresReauthentication(status: Int) {
        #expect(ChappieAuthError.tokenExchangeFailed(status: status, code: nil).requiresReauthentication == (status != 500))
        #expect(ChappieAuthError.missingRefreshToken.requiresReauthentication)
    }
}
