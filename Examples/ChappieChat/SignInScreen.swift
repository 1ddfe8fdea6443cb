import ChappieSDK
import SwiftUI

/// The signed-out screen: what the app does, the sign-in button, and the last error.
@MainActor
struct SignInScreen: View {
    @ObservedObject var authSession: ChappieAuthSession

    var body: some View {
        VStack(spacing: 24) {
            Image(systemName: "bubble.left.and.bubble.right")
                .font(.system(size: 48))
            Text(authSession.state == .reauthenticationRequired
                 ? "Your ChatGPT sign-in has expired."
                 : "Chat with your own ChatGPT account.")
                .font(.title3)
                .multilineTextAlignment(.center)
            // Requests the code, copies it, shows the onboarding sheet, asks for notification
            // permission once and posts "ChatGPT Linked!" when the user approves.
            ChappieSignIn(authSession: authSession)
                .buttonStyle(.borderedProminent)
            if let error = authSession.lastError, authSession.state != .signingIn {
                Text(error.errorDescription ?? "Sign-in failed.")
                    .font(.footnote)
                    .foregroundColor(.red)
                    .multilineTextAlignment(.center)
            }
        }
        .padding(32)
    }
}
