import Foundation

/// A side effect the `ChappieSignIn` view performs when the session's device code changes; the
/// view only carries these out (pasteboard, `openURL`, sheet), so the plan is tested on Linux.
public enum ChappieSignInAction: Sendable, Equatable {
    /// Put this user code on the system pasteboard, ready to paste on the verification page.
    case copyToPasteboard(String)
    /// Open this verification URL in the browser.
    case openURL(URL)
    /// Show the three-step onboarding sheet for this code (``ChappieSignInOnboardingStep``).
    case presentOnboarding(ChappieDeviceCode)
    /// Close the onboarding sheet, if it is shown.
    case dismissOnboarding

    /// What to do when the button's ``ChappieSignInButtonState/deviceCode`` becomes `deviceCode`.
    ///
    /// A new code is copied at once; then either the onboarding sheet opens (its first step
    /// opens the verification URL when the user taps it) or, without the sheet, the verification
    /// URL opens directly. When the code goes away (approved, failed, cancelled) the sheet closes.
    /// - Parameters:
    ///   - deviceCode: the code now awaiting approval, or nil.
    ///   - showsOnboardingSheet: whether the view shows the onboarding sheet.
    /// - Returns: the actions, in the order the view performs them.
    public static func actions(forDeviceCode deviceCode: ChappieDeviceCode?, showsOnboardingSheet: Bool) -> [ChappieSignInAction] {
        guard let deviceCode else { return [.dismissOnboarding] }
        return [
            .copyToPasteboard(deviceCode.userCode),
            showsOnboardingSheet ? .presentOnboarding(deviceCode) : .openURL(deviceCode.verificationURL),
        ]
    }
}
