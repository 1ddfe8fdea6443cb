import Foundation

/// Where the user is in the sign-in lifecycle.
public enum ChappieAuthState: Sendable, Equatable {
    /// The stored credential is still being read: only with a credential store that reads
    /// asynchronously (the Secret Service store on Linux, a custom store), or when the
    /// synchronous read failed at launch (a locked device). It becomes `.signedIn`, `.signedOut`
    /// or `.reauthenticationRequired` when the read ends; ``ChappieAuthSession/reload()`` waits
    /// for that. With the Keychain or the file store a session starts in its final state. Show neither the
    /// sign-in screen nor the signed-in UI yet (a placeholder or the launch screen).
    case restoring
    /// No credential is stored.
    case signedOut
    /// A device-code sign-in is running.
    case signingIn
    /// A usable credential is stored.
    case signedIn
    /// The stored credential can no longer be renewed (the token endpoint refused its refresh
    /// token, or it has none); the user must sign in again. Kept across launches.
    case reauthenticationRequired
}

/// Fine-grained progress of a device-code sign-in.
public enum ChappieDeviceLinkState: Sendable, Equatable {
    /// Nothing is happening.
    case idle
    /// Asking the server for a user code.
    case requestingCode
    /// Waiting for the user to enter the code at the verification URL.
    case awaitingApproval(ChappieDeviceCode)
    /// The user approved; exchanging the authorization code for tokens.
    case exchangingTokens
    /// Signed in.
    case linked
    /// The sign-in failed.
    case failed(ChappieAuthError)
    /// The code expired before it was approved.
    case expired
}

/// The code the user enters, and where.
public struct ChappieDeviceCode: Sendable, Hashable {
    /// The short code the user types at ``verificationURL``, e.g. `ABCD-EFGH1`.
    public let userCode: String
    /// The page where the user enters the code (`<issuer>/codex/device`).
    public let verificationURL: URL
    /// When the code stops working.
    public let expiresAt: Date
    /// Seconds the SDK waits between polls, as the server asked.
    public let pollingInterval: TimeInterval

    /// The warning shown next to the code wherever it is displayed (`ChappieSignIn`'s onboarding
    /// sheet shows it under the code; show it in your own UI too). A device code signs in
    /// whichever device requested it, as the account that approves it, so a page or a code that
    /// comes from anyone else is how device-code phishing works.
    public static let phishingWarning = "Never enter this code on a page you did not open yourself."

    /// Creates a device code value.
    public init(userCode: String, verificationURL: URL, expiresAt: Date, pollingInterval: TimeInterval) {
        self.userCode = userCode
        self.verificationURL = verificationURL
        self.expiresAt = expiresAt
        self.pollingInterval = pollingInterval
    }
}

/// Who is signed in, read from the ID token claims. Holds no token.
public struct ChappieAccountInfo: Sendable, Hashable, Codable {
    /// The account email.
    public var email: String?
    /// The ChatGPT plan.
    public var plan: ChappiePlan?
    /// The ChatGPT user id.
    public var userID: String?
    /// The ChatGPT account (workspace) id.
    public var accountID: String?
    /// For a Sign in with ChatGPT sign-in, whether the user granted "ChatGPT plan usage"; nil for
    /// a device-code sign-in (whose plan use is implied).
    public var planUsageEnabled: Bool?

    /// Creates an account info value.
    public init(email: String?, plan: ChappiePlan?, userID: String?, accountID: String?) {
        self.email = email
        self.plan = plan
        self.userID = userID
        self.accountID = accountID
    }
}
