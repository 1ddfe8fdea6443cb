/// The three steps of the `ChappieSignIn` onboarding sheet, in order.
public enum ChappieSignInOnboardingStep: Int, Sendable, Hashable, CaseIterable, Identifiable {
    /// Step 1: open the verification page (the step's button opens the URL).
    case openOpenAI = 1
    /// Step 2: tap Continue with ChatGPT on that page and sign in there.
    case continueWithChatGPT
    /// Step 3: paste the device code (shown in a tap-to-copy chip).
    case pasteDeviceCode

    /// The step number, 1 to 3.
    public var id: Int { rawValue }

    /// The step's headline.
    public var title: String {
        switch self {
        case .openOpenAI: "Open OpenAI"
        case .continueWithChatGPT: "Continue with ChatGPT"
        case .pasteDeviceCode: "Paste your device code"
        }
    }

    /// One sentence under the headline.
    public var detail: String {
        switch self {
        case .openOpenAI: "Open the OpenAI sign-in page in your browser."
        case .continueWithChatGPT: "Tap Continue with ChatGPT and sign in to your ChatGPT account."
        case .pasteDeviceCode: "Paste this code when asked. It is already copied; tap it to copy it again."
        }
    }
}
