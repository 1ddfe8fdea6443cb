// Samples of https://docs.chappiesdk.com/authentication/sign-in-button and
// https://docs.chappiesdk.com/authentication/overview, as published: SwiftUI, so compiled on Apple
// platforms only, and type-checked for iOS and macOS on Linux by `scripts/apple-typecheck` (this
// folder is one of its examples, compiled against the public API only). Lines with `// docs:`
// differ from the docs, saying why.
#if canImport(SwiftUI)
import ChappieSDK
import SwiftUI

/// Authentication overview, "Creating an auth session", and sign-in button, "Basic usage".
@MainActor  // docs: implied by `View` from the iOS 18 / macOS 15 SDKs on; explicit for older ones
struct DocsSignInButtonBasicUsage: View {
    @StateObject private var authSession = Chappie.authSession()

    var body: some View {
        ChappieSignIn(authSession: authSession)
            .buttonStyle(.borderedProminent)
            .padding()
    }
}

/// Sign-in button, "Handling the device code yourself" (the page is cut inside the second print).
@MainActor  // docs: implied by `View` from the iOS 18 / macOS 15 SDKs on; explicit for older ones
struct DocsSignInButtonOwnDeviceCodeUI: View {
    @StateObject private var authSession = Chappie.authSession()

    var body: some View {
        ChappieSignIn(
            authSession: authSession,
            showsOnboardingSheet: false,
            onDeviceCode: { deviceCode in
                print("User code:", deviceCode.userCode)
                print("Verification URL:", deviceCode.verificationURL)  // docs: cut after `"Verification URL:`
            }
        )
    }
}

/// Authentication overview, "Observing auth state" (its code is cut; this is the switch the prose
/// describes) and multi-account's sign-out, from a button action.
@MainActor  // docs: implied by `View` from the iOS 18 / macOS 15 SDKs on; explicit for older ones
struct DocsObservingAuthState: View {
    @StateObject private var authSession = Chappie.authSession()

    var body: some View {
        switch authSession.state {
        case .signedIn:
            VStack {
                Text(authSession.accountInfo?.email ?? "Signed in")
                Button("Sign out") { Task { try? await authSession.signOut() } }  // docs: `{ authSession.signOut() }`; it is async throws
            }
        case .restoring:
            ProgressView()
        case .signedOut, .signingIn, .reauthenticationRequired:
            ChappieSignIn(authSession: authSession)
        }
    }
}
#endif
