import Foundation

/// What the sign-in button looks like at one moment of a ``ChappieAuthSession``: the
/// platform-independent half of the `ChappieSignIn` SwiftUI view, which only renders it.
///
/// The button is enabled while signed out (or when the stored sign-in must be renewed), disabled
/// while a sign-in runs, and hidden once signed in and while the stored sign-in is still being
/// read (``ChappieAuthState/restoring``), so a returning user never sees it flash. While the
/// user is asked to approve, ``deviceCode`` holds the code to copy and the verification URL to open.
public struct ChappieSignInButtonState: Sendable, Equatable {
    /// The button's title, e.g. "Sign in with ChatGPT" or "Waiting for approval…".
    public var title: String
    /// True while a sign-in is running: tapping again would throw ``ChappieAuthError/signInInProgress``.
    public var isDisabled: Bool
    /// True once signed in, and while the stored sign-in is read: the button is not shown.
    public var isHidden: Bool
    /// The code the user must enter, while the session awaits approval; nil otherwise.
    public var deviceCode: ChappieDeviceCode?

    /// Derives the button from the session's values (``ChappieAuthSession/snapshot``).
    public init(snapshot: ChappieAuthSessionSnapshot) {
        switch snapshot.deviceLinkState {
        case .awaitingApproval(let code) where snapshot.state == .signingIn: deviceCode = code
        default: deviceCode = nil
        }
        switch snapshot.state {
        case .restoring:
            title = Title.restoring
            isDisabled = true
            isHidden = true
        case .signedOut:
            title = Title.signIn
            isDisabled = false
            isHidden = false
        case .reauthenticationRequired:
            title = Title.signInAgain
            isDisabled = false
            isHidden = false
        case .signingIn:
            switch snapshot.deviceLinkState {
            case .awaitingApproval: title = Title.awaitingApproval
            case .exchangingTokens, .linked: title = Title.finishing
            default: title = Title.requestingCode
            }
            isDisabled = true
            isHidden = false
        case .signedIn:
            title = Title.signedIn
            isDisabled = true
            isHidden = true
        }
    }

    /// The button titles (English; apps that need other words build their own button from
    /// ``ChappieAuthSession`` directly).
    private enum Title {
        static let signIn = "Sign in with ChatGPT"
        static let restoring = "Checking sign-in…"
        static let signInAgain = "Sign in again with ChatGPT"
        static let requestingCode = "Requesting a code…"
        static let awaitingApproval = "Waiting for approval…"
        static let finishing = "Finishing sign-in…"
        static let signedIn = "Signed in"
    }
}
