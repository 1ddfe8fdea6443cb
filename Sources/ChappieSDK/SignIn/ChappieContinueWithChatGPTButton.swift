#if canImport(SwiftUI)
import Foundation
import SwiftUI

/// A "Continue with ChatGPT" button that runs ``ChappieAuthSession/signInWithChatGPT(appName:enablePlanUsage:timeout:openURL:)``:
/// the page opens in the platform's browser (an authentication sheet on iOS) and the session
/// waits for it to come back. Once signed in, `onSignedIn` gets the result; show
/// ``ChappiePlanUsageNotice`` when ``ChappieSignInWithChatGPTResult/showsPlanUsageNotice`` is true.
///
/// It is disabled while a sign-in runs and hidden once signed in. Failures are left in
/// ``ChappieAuthSession/lastError``. Place it with your other sign-in options, at comparable
/// prominence.
///
/// ```swift
/// ChappieContinueWithChatGPTButton(authSession: authSession, appName: "My App") { result in
///     showsNotice = result.showsPlanUsageNotice
/// }
/// ```
///
/// Type-checked for iOS and macOS, not run.
@MainActor
public struct ChappieContinueWithChatGPTButton: View {
    @ObservedObject private var authSession: ChappieAuthSession
    private let appName: String
    private let enablePlanUsage: Bool
    private let onSignedIn: @MainActor @Sendable (ChappieSignInWithChatGPTResult) -> Void

    /// Creates the button.
    /// - Parameters:
    ///   - authSession: the session to sign in; hold it in `@StateObject` in the owning view.
    ///   - appName: your app's name, shown on ChatGPT's consent page at the first sign-in.
    ///   - enablePlanUsage: true to ask for ChatGPT plan usage again (a user who declined it).
    ///   - onSignedIn: called on the main actor once signed in.
    public init(authSession: ChappieAuthSession, appName: String, enablePlanUsage: Bool = false,
                onSignedIn: @escaping @MainActor @Sendable (ChappieSignInWithChatGPTResult) -> Void = { _ in }) {
        self.authSession = authSession
        self.appName = appName
        self.enablePlanUsage = enablePlanUsage
        self.onSignedIn = onSignedIn
    }

    /// The button, or nothing once signed in.
    public var body: some View {
        if authSession.state != .signedIn || enablePlanUsage {
            Button {
                Task { @MainActor in
                    if let result = try? await authSession.signInWithChatGPT(appName: appName, enablePlanUsage: enablePlanUsage) {
                        onSignedIn(result)
                    }
                }
            } label: {
                Label(ChappiePlanUsageCopy.continueWithChatGPT, systemImage: "bubble.left.and.bubble.right")
            }
            .disabled(authSession.state == .signingIn || authSession.state == .restoring)
        }
    }
}

/// The one-time "You're using your ChatGPT plan" notice: title, body, a "Manage usage" link and a
/// "Got it" button. "Got it" records the acknowledgement
/// (``ChappieAuthSession/acknowledgePlanUsageNotice()``), so it is never shown again for this
/// registration, then calls `onDismiss`. Present it as a sheet or an overlay, with your
/// approved ChatGPT logo above it if you show one.
@MainActor
public struct ChappiePlanUsageNotice: View {
    private let authSession: ChappieAuthSession
    private let onDismiss: @MainActor @Sendable () -> Void

    /// Creates the notice for `authSession`'s registration; `onDismiss` hides it.
    public init(authSession: ChappieAuthSession, onDismiss: @escaping @MainActor @Sendable () -> Void) {
        self.authSession = authSession
        self.onDismiss = onDismiss
    }

    /// The notice.
    public var body: some View {
        VStack(spacing: 16) {
            Text(ChappiePlanUsageCopy.noticeTitle).font(.title2).bold().multilineTextAlignment(.center)
            Text(ChappiePlanUsageCopy.noticeBody).multilineTextAlignment(.center)
            ChappieManageUsageLink()
            Button(ChappiePlanUsageCopy.gotIt) {
                try? authSession.acknowledgePlanUsageNotice()
                onDismiss()
            }
            .keyboardShortcut(.defaultAction)
        }
        .padding(24)
    }
}

/// A "Manage usage" link to ChatGPT's usage settings (`https://chatgpt.com/settings/usage`);
/// place it next to your usage summary and near the composer while the plan is in use.
public struct ChappieManageUsageLink: View {
    /// Creates the link.
    public init() {}

    /// The link.
    public var body: some View {
        Link(ChappiePlanUsageCopy.manageUsage, destination: ChappiePlanUsageCopy.manageUsageURL)
    }
}
#endif
