#if canImport(SwiftUI)
import Foundation
import SwiftUI

/// A "Sign in with ChatGPT" button that runs the whole device-code sign-in of a
/// ``ChappieAuthSession``: it requests the code, copies it to the pasteboard, opens the
/// verification URL (or first shows a three-step onboarding sheet whose first step opens it), and
/// waits while the session polls for approval.
///
/// It is disabled while a sign-in runs and hidden once signed in; ordinary button modifiers such as
/// `.buttonStyle(.borderedProminent)` apply to it. What it shows and does comes from
/// ``ChappieSignInButtonState`` and ``ChappieSignInAction``, which are platform-independent and
/// tested; this view only renders them. Failures are left in ``ChappieAuthSession/lastError``.
///
/// ```swift
/// ChappieSignIn(authSession: authSession)
/// ChappieSignIn(authSession: authSession, showsOnboardingSheet: false) { code in
///     print("Enter \(code.userCode) at \(code.verificationURL)")
/// }
/// ```
///
/// NOT COMPILED ON LINUX: see APPLE-PLATFORMS.md.
public struct ChappieSignIn: View {
    @ObservedObject private var authSession: ChappieAuthSession
    private let showsOnboardingSheet: Bool
    private let onDeviceCode: (@MainActor @Sendable (ChappieDeviceCode) -> Void)?
    @Environment(\.openURL) private var openURL
    @State private var onboarding: OnboardingPresentation?

    /// Creates the button.
    /// - Parameters:
    ///   - authSession: the session to sign in; hold it in `@StateObject` in the owning view.
    ///   - showsOnboardingSheet: true (the default) shows the three-step sheet
    ///     (``ChappieSignInOnboardingStep``) instead of opening the browser at once.
    ///   - onDeviceCode: called on the main actor with the code once it is issued, e.g. to show it
    ///     in your own UI.
    public init(
        authSession: ChappieAuthSession,
        showsOnboardingSheet: Bool = true,
        onDeviceCode: (@MainActor @Sendable (ChappieDeviceCode) -> Void)? = nil
    ) {
        self.authSession = authSession
        self.showsOnboardingSheet = showsOnboardingSheet
        self.onDeviceCode = onDeviceCode
    }

    /// The button, or nothing once signed in.
    public var body: some View {
        let state = ChappieSignInButtonState(snapshot: authSession.snapshot)
        Group {
            if !state.isHidden {
                Button(state.title) { startSignIn() }
                    .disabled(state.isDisabled)
            }
        }
        .onChange(of: state.deviceCode) { code in
            for action in ChappieSignInAction.actions(forDeviceCode: code, showsOnboardingSheet: showsOnboardingSheet) {
                perform(action)
            }
        }
        .sheet(item: $onboarding) { presentation in
            ChappieSignInOnboardingSheet(deviceCode: presentation.deviceCode)
        }
    }

    @MainActor
    private func startSignIn() {
        let session = authSession
        let onDeviceCode = onDeviceCode
        Task { @MainActor in
            // The error is kept in session.lastError for the app to show.
            try? await session.startDeviceCodeSignIn(onDeviceCode: onDeviceCode)
            onboarding = nil
        }
    }

    @MainActor
    private func perform(_ action: ChappieSignInAction) {
        switch action {
        case .copyToPasteboard(let text): ChappieSignInPasteboard.copy(text)
        case .openURL(let url): openURL(url)
        case .presentOnboarding(let code): onboarding = OnboardingPresentation(deviceCode: code)
        case .dismissOnboarding: onboarding = nil
        }
    }

    /// The sheet's item: one presentation per device code.
    private struct OnboardingPresentation: Identifiable {
        let deviceCode: ChappieDeviceCode
        var id: String { deviceCode.userCode }
    }
}
#endif
