#if canImport(UserNotifications)
import Foundation
import UserNotifications

/// ``SignInNotificationCenter`` over `UNUserNotificationCenter`, for ``ChappieSignIn``.
///
/// Type-checked for iOS and macOS, not run (see APPLE-PLATFORMS.md).
struct UserNotificationCenter: SignInNotificationCenter {
    /// The center for this process, or nil when the process has no bundle identifier (a
    /// command-line tool or a test runner), where `UNUserNotificationCenter.current()` traps.
    static var current: UserNotificationCenter? {
        Bundle.main.bundleIdentifier == nil ? nil : UserNotificationCenter()
    }

    func authorization() async -> ChappieSignInNotification.Authorization {
        let status = await UNUserNotificationCenter.current().notificationSettings().authorizationStatus
        switch status {
        case .notDetermined: return .notDetermined
        case .denied: return .denied
        case .authorized: return .authorized
        case .provisional: return .provisional
        #if os(iOS) || os(visionOS)
        case .ephemeral: return .ephemeral
        #endif
        @unknown default: return .denied
        }
    }

    func requestAuthorization() async {
        _ = try? await UNUserNotificationCenter.current().requestAuthorization(options: [.alert, .sound])
    }

    func post(_ notification: ChappieSignInNotification) async {
        let content = UNMutableNotificationContent()
        content.title = notification.title
        content.body = notification.body
        content.sound = .default
        let request = UNNotificationRequest(identifier: notification.identifier, content: content, trigger: nil)
        try? await UNUserNotificationCenter.current().add(request)
    }
}
#endif
