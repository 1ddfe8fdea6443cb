#if canImport(SwiftUI)
import Foundation
import SwiftUI

/// A "Sign in with ChatGPT" button that runs the whole device-code sign-in of a
/// ``ChappieAuthSession``: it asks for notification permission (once), requests the code, copies
/// it to the pasteboard, opens the verification URL (or first shows a three-step onboarding sheet
/// whose first step opens it), waits while the session polls for approval, and posts the local
/// notification "ChatGPT Linked! Return to the app" when the user has approved.
///
/// It is disabled while a sign-in runs and hidden once signed in (and while a returning user's
/// sign-in is still read, ``ChappieAuthState/restoring``); ordinary button modifiers such as
/// `.buttonStyle(.borderedProminent)` apply to it. What it shows and does comes from
/// ``ChappieSignInButtonState``, ``ChappieSignInAction`` and ``ChappieSignInNotification``, which
/// are platform-independent and tested; this view only renders them. Failures are left in
/// ``ChappieAuthSession/lastError``.
///
/// ```swift
/// ChappieSignIn(authSession: authSession)
/// ChappieSignIn(authSession: authSession, showsOnboardingSheet: false) { code in
///     print("Enter \(code.userCode) at \(code.verificationURL)")
/// }
/// ```
///
/// Type-checked for iOS and macOS, not run: see APPLE-PLATFORMS.md.
@MainActor
public struct ChappieSignIn: View {
    @ObservedObject private var authSession: ChappieAuthSession
    private let showsOnboardingSheet: Bool
    private let notifiesWhenLinked: Bool
    private let onDeviceCode: (@MainActor @Sendable (ChappieDeviceCode) -> Void)?
    @Environment(\.openURL) private var openURL
    @State private var onboarding: OnboardingPresentation?
    /// True from the tap until the sign-in starts (while the notification prompt is answered).
    @State private var isPreparing = false

    /// Creates the button.
    /// - Parameters:
    ///   - authSession: the session to sign in; hold it in `@StateObject` in the owning view.
    ///   - showsOnboardingSheet: true (the default) shows the three-step sheet
    ///     (``ChappieSignInOnboardingStep``) instead of opening the browser at once.
    ///   - notifiesWhenLinked: true (the default) asks for notification permission before the
    ///     first sign-in (only if the app never asked) and posts "ChatGPT Linked! Return to the
    ///     app" when the user approves (``ChappieSignInNotification/linked``); false does neither.
    ///   - onDeviceCode: called on the main actor with the code once it is issued, e.g. to show it
    ///     in your own UI (with ``ChappieDeviceCode/phishingWarning``).
    public init(
        authSession: ChappieAuthSession,
        showsOnboardingSheet: Bool = true,
        notifiesWhenLinked: Bool = true,
        onDeviceCode: (@MainActor @Sendable (ChappieDeviceCode) -> Void)? = nil
    ) {
        self.authSession = authSession
        self.showsOnboardingSheet = showsOnboardingSheet
        self.notifiesWhenLinked = notifiesWhenLinked
        self.onDeviceCode = onDeviceCode
    }

    /// The button, or nothing once signed in.
    public var body: some View {
        let state = ChappieSignInButtonState(snapshot: authSession.snapshot)
        Group {
            if !state.isHidden {
                Button(state.title) { startSignIn() }
                    .disabled(state.isDisabled || isPreparing)
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

    private func startSignIn() {
        guard !isPreparing else { return }
        isPreparing = true
        let session = authSession
        let onDeviceCode = onDeviceCode
        let notifications = SignInNotifications(isEnabled: notifiesWhenLinked, center: Self.notificationCenter)
        Task { @MainActor in
            await notifications.prepare()
            // From here the session's state (.signingIn) keeps the button disabled.
            isPreparing = false
            // The error is kept in session.lastError for the app to show.
            try? await session.startDeviceCodeSignIn(onDeviceCode: onDeviceCode)
            onboarding = nil
            await notifications.signInEnded(in: session.deviceLinkState)
        }
    }

    private func perform(_ action: ChappieSignInAction) {
        switch action {
        case .copyToPasteboard(let text): ChappieSignInPasteboard.copy(text)
        case .openURL(let url): openURL(url)
        case .presentOnboarding(let code): onboarding = OnboardingPresentation(deviceCode: code)
        case .dismissOnboarding: onboarding = nil
        }
    }

    /// `UNUserNotificationCenter` where the platform has it.
    private static var notificationCenter: (any SignInNotificationCenter)? {
        #if canImport(UserNotifications)
        UserNotificationCenter.current
        #else
        nil
        #endif
    }

    /// The sheet's item: one presentation per device code.
    private struct OnboardingPresentation: Identifiable {
        let deviceCode: ChappieDeviceCode
        var id: String { deviceCode.userCode }
    }
}
#endif
