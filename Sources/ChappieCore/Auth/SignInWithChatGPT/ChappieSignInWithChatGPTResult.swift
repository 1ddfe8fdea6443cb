import Foundation

/// What ``ChappieAuthSession/signInWithChatGPT(appName:enablePlanUsage:timeout:openURL:)`` returns.
public struct ChappieSignInWithChatGPTResult: Sendable, Hashable {
    /// Who signed in (email and the account's subject as ``ChappieAccountInfo/userID``).
    public let account: ChappieAccountInfo
    /// The registration's stable label, distinct among this installation's registrations (the
    /// email, with " (2)" and so on when two registrations share it).
    public let registrationLabel: String
    /// Whether the user granted "ChatGPT plan usage". When false the user is signed in but the
    /// app cannot use their plan: offer to enable it (sign in again with `enablePlanUsage: true`)
    /// or another way to pay.
    public let planUsageEnabled: Bool
    /// True the first time plan usage is enabled for this registration: show the one-time "You're
    /// using your ChatGPT plan" notice, then call ``ChappieAuthSession/acknowledgePlanUsageNotice()``.
    public let showsPlanUsageNotice: Bool
}

/// One Sign in with ChatGPT registration of this installation: an account and workspace the app
/// is registered with. Holds no token.
public struct ChappieSignInWithChatGPTRegistration: Sendable, Hashable, Identifiable {
    /// A stable label, distinct among this installation's registrations.
    public let label: String
    /// The account's email, as a label (not an identity).
    public let email: String?
    /// The client id issued to this registration (`oaiapp_…`). Not a secret.
    public let clientID: String
    /// The credential slot (``ChappieConfiguration/keychainAccount``) that holds its tokens.
    public let account: String
    /// Whether it is the registration of the session's own slot.
    public let isCurrent: Bool
    /// Whether it was the last one signed in on this installation.
    public let isActive: Bool

    /// The client id.
    public var id: String { clientID }
}

/// The outcome of ``ChappieAuthSession/signOutReportingRevocation()``.
public struct ChappieSignOutResult: Sendable, Hashable {
    /// Whether the sign-in server confirmed that it revoked the session. When false, the tokens
    /// were still deleted from this device; the user can disconnect the app in ChatGPT's settings
    /// (Settings › Security › Sign in with ChatGPT).
    public let remoteDisconnectConfirmed: Bool

    /// The sentence to show when ``remoteDisconnectConfirmed`` is false, else nil.
    public var unconfirmedNotice: String? {
        remoteDisconnectConfirmed ? nil
            : "Signed out on this device, but ChatGPT could not confirm the disconnect. To be sure, disconnect the app in ChatGPT's settings."
    }
}
