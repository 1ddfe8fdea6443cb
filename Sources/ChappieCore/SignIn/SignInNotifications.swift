/// The notification work of one ``ChappieSignIn`` sign-in: ask for permission before it starts,
/// post "ChatGPT Linked!" when it links, following ``ChappieSignInNotification``'s rules over an
/// injected notification center (`UNUserNotificationCenter` on Apple platforms, a recording
/// double in the Linux tests).
package struct SignInNotifications: Sendable {
    /// The button's `notifiesWhenLinked`.
    package var isEnabled: Bool
    /// Where notifications go; nil where there is none (nothing is asked or posted).
    package var center: (any SignInNotificationCenter)?

    /// Notification work with the button's `notifiesWhenLinked` (`isEnabled`) over `center`.
    package init(isEnabled: Bool, center: (any SignInNotificationCenter)?) {
        self.isEnabled = isEnabled
        self.center = center
    }

    /// Before the sign-in starts: asks for permission when the rules say so, and returns once the
    /// user answered (so the prompt never covers the browser the sign-in opens next).
    package func prepare() async {
        guard isEnabled, let center else { return }
        if ChappieSignInNotification.shouldRequestAuthorization(isEnabled: isEnabled, authorization: await center.authorization()) {
            await center.requestAuthorization()
        }
    }

    /// After the sign-in ended in `deviceLinkState`: posts ``ChappieSignInNotification/linked``
    /// when the rules say so.
    package func signInEnded(in deviceLinkState: ChappieDeviceLinkState) async {
        guard isEnabled, deviceLinkState == .linked, let center else { return }
        let authorization = await center.authorization()
        if let notification = ChappieSignInNotification.notification(
            afterSignInEndedIn: deviceLinkState, isEnabled: isEnabled, authorization: authorization)
        {
            await center.post(notification)
        }
    }
}

/// The three calls ``SignInNotifications`` makes on a notification center.
package protocol SignInNotificationCenter: Sendable {
    /// The app's current permission.
    func authorization() async -> ChappieSignInNotification.Authorization
    /// Shows the system's permission prompt (alerts and sounds) and returns when it is answered.
    func requestAuthorization() async
    /// Posts `notification` at once; failures are ignored (a notification is a courtesy).
    func post(_ notification: ChappieSignInNotification) async
}
