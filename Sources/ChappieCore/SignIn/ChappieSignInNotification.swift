/// The local notification `ChappieSignIn` (Apple platforms) posts when the user has approved the code in the
/// browser ("ChatGPT Linked!", "Return to the app"), and the rules for asking permission to post it.
///
/// By default the button asks for notification permission before it starts a sign-in, once
/// (only while the app has never asked: the system shows its prompt a single time), and posts
/// ``linked`` when the sign-in links; `ChappieSignIn(authSession:notifiesWhenLinked: false)` does
/// neither. The rules are platform-independent (and tested); the button only carries them out
/// with `UNUserNotificationCenter`. Apps with their own sign-in UI can follow the same rules.
public struct ChappieSignInNotification: Sendable, Hashable {
    /// Whether the app may post notifications, as `UNNotificationSettings.authorizationStatus`
    /// reports it.
    public enum Authorization: Sendable, Hashable {
        /// The app never asked.
        case notDetermined
        /// The user refused (or the platform has no notifications).
        case denied
        /// The user allowed notifications.
        case authorized
        /// Quiet notifications without a prompt (iOS, macOS).
        case provisional
        /// An App Clip's temporary permission (iOS).
        case ephemeral

        /// True when a notification may be posted now.
        public var allowsPosting: Bool {
            switch self {
            case .authorized, .provisional, .ephemeral: true
            case .notDetermined, .denied: false
            }
        }
    }

    /// The request identifier; posting again with it replaces the earlier notification.
    public var identifier: String
    /// The bold first line.
    public var title: String
    /// The text under the title.
    public var body: String

    /// Creates a notification.
    public init(identifier: String, title: String, body: String) {
        self.identifier = identifier
        self.title = title
        self.body = body
    }

    /// "ChatGPT Linked! Return to the app": posted when the user approved the code and the
    /// sign-in finished, so someone still in the browser knows to come back.
    public static let linked = ChappieSignInNotification(
        identifier: "com.chappie.sdk.sign-in.linked", title: "ChatGPT Linked!", body: "Return to the app")

    /// Whether to ask for permission before a sign-in starts: when the feature is on and the app
    /// has never asked. Once asked, the system answers without showing anything, so asking again
    /// is pointless.
    /// - Parameters:
    ///   - isEnabled: the button's `notifiesWhenLinked`.
    ///   - authorization: the app's current permission.
    /// - Returns: true when the button should ask for permission first.
    public static func shouldRequestAuthorization(isEnabled: Bool, authorization: Authorization) -> Bool {
        isEnabled && authorization == .notDetermined
    }

    /// The notification to post when a sign-in ended in `deviceLinkState`: ``linked`` when the
    /// feature is on, the sign-in linked, and the app may post; nil otherwise (a failed, expired
    /// or cancelled sign-in posts nothing).
    /// - Parameters:
    ///   - deviceLinkState: the session's ``ChappieAuthSession/deviceLinkState`` after the sign-in.
    ///   - isEnabled: the button's `notifiesWhenLinked`.
    ///   - authorization: the app's current permission.
    /// - Returns: the notification to post, or nil.
    public static func notification(
        afterSignInEndedIn deviceLinkState: ChappieDeviceLinkState, isEnabled: Bool, authorization: Authorization
    ) -> ChappieSignInNotification? {
        guard isEnabled, deviceLinkState == .linked, authorization.allowsPosting else { return nil }
        return .linked
    }
}
