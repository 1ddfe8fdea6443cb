import Foundation

/// The words and the link of Sign in with ChatGPT's interface guidelines, shared by the SwiftUI
/// views (`ChappieContinueWithChatGPTButton`, `ChappiePlanUsageNotice`, `ChappieManageUsageLink`)
/// and by apps that draw their own.
public enum ChappiePlanUsageCopy {
    /// The sign-in button's label.
    public static let continueWithChatGPT = "Continue with ChatGPT"
    /// The title of the notice shown once, the first time plan usage is enabled.
    public static let noticeTitle = "You're using your ChatGPT plan"
    /// The notice's body.
    public static let noticeBody = "Eligible usage in this app uses your ChatGPT plan. Manage usage in your ChatGPT settings."
    /// The notice's dismiss action.
    public static let gotIt = "Got it"
    /// The label of the link to ChatGPT's usage settings.
    public static let manageUsage = "Manage usage"
    /// A short label to show near the composer while the plan is in use.
    public static let usingChatGPTPlan = "Using ChatGPT plan"
    /// ChatGPT's usage settings, where the user sets this app's limit.
    public static let manageUsageURL = URL(string: "https://chatgpt.com/settings/usage")!
}
