import Foundation
import Testing
@testable import ChappieCore

/// A notification center that records what it was asked and answers a fixed permission.
private actor RecordingCenter: SignInNotificationCenter {
    private(set) var authorizationValue: ChappieSignInNotification.Authorization
    private(set) var requests = 0
    private(set) var posted: [ChappieSignInNotification] = []

    init(_ authorization: ChappieSignInNotification.Authorization) { authorizationValue = authorization }

    func authorization() -> ChappieSignInNotification.Authorization { authorizationValue }
    func requestAuthorization() {
        requests += 1
        authorizationValue = .authorized
    }
    func post(_ notification: ChappieSignInNotification) { posted.append(notification) }
}

private let code = ChappieDeviceCode(userCode: "ABCD-EFGH1", verificationURL: URL(string: "https://auth.example.com/codex/device")!,
                                     expiresAt: Date(timeIntervalSince1970: 900), pollingInterval: 5)

@Suite("Sign-in notifications and warnings")
struct SignInNotificationTests {
    @Test("the linked notification reads as the published docs say")
    func linkedText() {
        #expect(ChappieSignInNotification.linked.title == "ChatGPT Linked!")
        #expect(ChappieSignInNotification.linked.body == "Return to the app")
    }

    @Test("permission is asked only when enabled and never asked before", arguments: [
        (true, ChappieSignInNotification.Authorization.notDetermined, true),
        (true, .denied, false), (true, .authorized, false), (true, .provisional, false), (true, .ephemeral, false),
        (false, .notDetermined, false),
    ])
    func whenToAsk(isEnabled: Bool, authorization: ChappieSignInNotification.Authorization, asks: Bool) {
        #expect(ChappieSignInNotification.shouldRequestAuthorization(isEnabled: isEnabled, authorization: authorization) == asks)
    }

    @Test("only a linked sign-in posts, when enabled and allowed", arguments: [
        (ChappieDeviceLinkState.linked, true, ChappieSignInNotification.Authorization.authorized, true),
        (.linked, true, .provisional, true),
        (.linked, true, .ephemeral, true),
        (.linked, true, .denied, false),
        (.linked, true, .notDetermined, false),
        (.linked, false, .authorized, false),
        (.failed(.deviceCodeDenied), true, .authorized, false),
        (.failed(.cancelled), true, .authorized, false),
        (.expired, true, .authorized, false),
        (.awaitingApproval(code), true, .authorized, false),
    ])
    func whenToPost(state: ChappieDeviceLinkState, isEnabled: Bool, authorization: ChappieSignInNotification.Authorization, posts: Bool) {
        let notification = ChappieSignInNotification.notification(afterSignInEndedIn: state, isEnabled: isEnabled, authorization: authorization)
        #expect(notification == (posts ? .linked : nil))
    }

    @Test("a first sign-in asks once, then posts ChatGPT Linked! when it links")
    func firstSignIn() async {
        // given
        let center = RecordingCenter(.notDetermined)
        let notifications = SignInNotifications(isEnabled: true, center: center)
        // when
        await notifications.prepare()
        await notifications.signInEnded(in: .linked)
        await notifications.prepare()
        // then
        #expect(await center.requests == 1)
        #expect(await center.posted == [.linked])
    }

    @Test("turned off, nothing is asked or posted")
    func disabled() async {
        let center = RecordingCenter(.notDetermined)
        let notifications = SignInNotifications(isEnabled: false, center: center)
        await notifications.prepare()
        await notifications.signInEnded(in: .linked)
        #expect(await center.requests == 0)
        #expect(await center.posted.isEmpty)
    }

    @Test("a refused permission is not asked again and nothing is posted; a failed sign-in posts nothing")
    func refusedOrFailed() async {
        let refused = RecordingCenter(.denied)
        await SignInNotifications(isEnabled: true, center: refused).prepare()
        await SignInNotifications(isEnabled: true, center: refused).signInEnded(in: .linked)
        #expect(await refused.requests == 0)
        #expect(await refused.posted.isEmpty)

        let allowed = RecordingCenter(.authorized)
        await SignInNotifications(isEnabled: true, center: allowed).signInEnded(in: .failed(.deviceCodeDenied))
        #expect(await allowed.posted.isEmpty)
    }

    @Test("without a notification center (a process without a bundle) nothing happens")
    func noCenter() async {
        await SignInNotifications(isEnabled: true, center: nil).prepare()
        await SignInNotifications(isEnabled: true, center: nil).signInEnded(in: .linked)
    }

    @Test("the code screen warns against entering the code on a page the user did not open")
    func phishingWarning() {
        #expect(ChappieDeviceCode.phishingWarning == "Never enter this code on a page you did not open yourself.")
    }
}
