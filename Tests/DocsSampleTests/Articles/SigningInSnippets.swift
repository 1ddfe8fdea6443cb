import ChappieSDK
import ChappieSDKTesting
import Foundation
import Testing

// The code of the DocC article "Signing in" (Sources/ChappieSDK/ChappieSDK.docc), compiled and
// run here; CatalogSnippetTests checks that each of the article's blocks appears here.

@MainActor
func signingInWithOwnUI(session: ChappieAuthSession) async {
    do {
        try await session.startDeviceCodeSignIn { code in
            // Show the code, the page and the warning; the session polls until the user approves.
            print(code.userCode, code.verificationURL, ChappieDeviceCode.phishingWarning)
        }
    } catch {
        // A ChappieAuthError, also kept in session.lastError.
        print(error.localizedDescription)
    }
}

@MainActor
func signingInWithChatGPT(session: ChappieAuthSession) async {
    do {
        let result = try await session.signInWithChatGPT(appName: "My App", timeout: .seconds(300))
        if !result.planUsageEnabled {
            // Signed in, but the user did not allow plan usage: offer to enable it
            // (signInWithChatGPT(appName:enablePlanUsage: true)) or another way to pay.
        }
        if result.showsPlanUsageNotice {
            // Show "You're using your ChatGPT plan" once, then:
            try session.acknowledgePlanUsageNotice()
        }
    } catch let error as ChappieAuthError {
        print(error.localizedDescription, error.recoverySuggestion ?? "")
    } catch {
        print(error.localizedDescription)
    }
}

@MainActor
func signingInObserving(session: ChappieAuthSession) async {
    for await snapshot in session.updates {
        switch snapshot.state {
        case .restoring: print("launch screen")
        case .signedOut, .reauthenticationRequired: print("sign-in screen", snapshot.lastError?.localizedDescription ?? "")
        case .signingIn: print("waiting for approval")
        case .signedIn: print("signed in as", snapshot.accountInfo?.email ?? "?")
        }
        if snapshot.state == .signedIn { break }  // +test
    }
}

@MainActor
func signingOutAndWaiting(session: ChappieAuthSession) async throws {
    try await session.signOut()  // revokes the refresh token, deletes this slot's credential
}

@MainActor
func signingOutFromAButton(session: ChappieAuthSession) {
    Task { try? await session.signOut() }  // a failure is left in session.lastError
}

@Suite("DocC articles: Signing in")
struct SigningInSnippetTests {
    @Test("a sign-in with your own UI shows the code, then the session is signed in")
    @MainActor
    func ownUI() async throws {
        try await DocsEnvironment.run { docs in
            let session = Chappie.authSession(configuration: ChappieConfiguration(keychainAccount: "someone"))
            await session.reload()
            await signingInWithOwnUI(session: session)
            #expect(docs.output.text.hasSuffix("/codex/device \(ChappieDeviceCode.phishingWarning)\n"))
            #expect(session.state == .signedIn)
            await signingInObserving(session: session)
            #expect(docs.output.text.hasSuffix("signed in as user@example.com\n"))
            try await signingOutAndWaiting(session: session)
            #expect(session.state == .signedOut)
        }
    }

    @Test("a denied sign-in prints the reason and leaves it in lastError")
    @MainActor
    func denied() async throws {
        try await DocsEnvironment.run(emulator: .init(pollingIntervalSeconds: 1, autoApproveAfterPolls: nil)) { docs in
            let session = Chappie.authSession(configuration: ChappieConfiguration(keychainAccount: "someone"))
            async let denial = docs.emulator.denyNextSignIn()
            await signingInWithOwnUI(session: session)
            _ = await denial
            #expect(session.lastError == .deviceCodeDenied)
            #expect(docs.output.text.hasSuffix(ChappieAuthError.deviceCodeDenied.localizedDescription + "\n"))
        }
    }
}
