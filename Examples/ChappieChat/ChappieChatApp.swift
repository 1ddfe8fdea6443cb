import ChappieSDK
import SwiftUI

/// A minimal SwiftUI app on Chappie: a "Sign in with ChatGPT" button, a chat that streams the
/// reply as it arrives, and a sheet that asks the user before the model may run a host tool.
///
/// It uses only ChappieSDK's public API. Copy these files into an iOS 16 / macOS 13 app target
/// that depends on the `ChappieSDK` product (see README.md).
@main
@MainActor
struct ChappieChatApp: App {
    /// One configuration for the auth session and the client, so both find the same credential.
    static let configuration = ChappieConfiguration(keychainService: "com.example.chappie-chat")

    /// Read from the Keychain at creation: a returning user's first frame is the chat.
    @StateObject private var authSession = Chappie.authSession(configuration: ChappieChatApp.configuration)

    var body: some Scene {
        WindowGroup {
            RootView(authSession: authSession)
        }
    }
}

/// Shows the sign-in screen or the chat, following the session's state.
@MainActor
struct RootView: View {
    @ObservedObject var authSession: ChappieAuthSession
    @Environment(\.scenePhase) private var scenePhase

    var body: some View {
        Group {
            switch authSession.state {
            case .restoring:
                // Only with a store that reads asynchronously (or a Keychain locked at launch).
                ProgressView()
            case .signedOut, .signingIn, .reauthenticationRequired:
                SignInScreen(authSession: authSession)
            case .signedIn:
                ChatScreen(authSession: authSession, configuration: ChappieChatApp.configuration)
            }
        }
        .onChange(of: scenePhase) { phase in
            // A launch in the background before the first unlock cannot read the Keychain;
            // read it again when the user brings the app forward.
            if phase == .active && authSession.state != .signingIn {
                Task { await authSession.reload() }
            }
        }
    }
}
