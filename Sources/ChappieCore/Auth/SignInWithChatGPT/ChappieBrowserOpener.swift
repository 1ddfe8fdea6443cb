import Foundation
#if canImport(AppKit)
import AppKit
#endif
#if canImport(AuthenticationServices) && os(iOS)
import AuthenticationServices
import UIKit
#endif

/// Opens the Sign in with ChatGPT page for ``ChappieAuthSession/signInWithChatGPT(appName:enablePlanUsage:timeout:openURL:)``.
///
/// The session starts its own listener on `127.0.0.1`, builds the authorize URL and hands it to
/// the opener; the browser comes back to the listener, never to the opener. ``system`` is the
/// platform's default: the default browser on macOS (`NSWorkspace`) and Linux (`xdg-open`), and an
/// `ASWebAuthenticationSession` sheet on iOS, dismissed once the listener has the redirect. Pass
/// ``init(_:)`` to show the link yourself (a terminal, a QR code).
public struct ChappieBrowserOpener: Sendable {
    let open: @MainActor @Sendable (URL) async throws -> Void
    let dismiss: @MainActor @Sendable () -> Void

    /// An opener that calls `open` with the authorize URL. Throw from it when no browser can be
    /// opened: the sign-in then fails with ``ChappieAuthError/browserUnavailable(_:)``. The URL
    /// holds no token, code or verifier, but it is single-use: do not log it.
    public init(_ open: @escaping @MainActor @Sendable (URL) async throws -> Void) {
        self.open = open
        dismiss = {}
    }

    init(open: @escaping @MainActor @Sendable (URL) async throws -> Void, dismiss: @escaping @MainActor @Sendable () -> Void) {
        self.open = open
        self.dismiss = dismiss
    }

    /// The platform's default way to show the page (see the type's description). Throws
    /// ``ChappieAuthError/browserUnavailable(_:)`` where none exists.
    @MainActor public static var system: ChappieBrowserOpener {
        #if canImport(AuthenticationServices) && os(iOS)
        let box = WebAuthenticationBox()
        return ChappieBrowserOpener(open: { url in try box.start(url) }, dismiss: { box.cancel() })
        #elseif canImport(AppKit)
        return ChappieBrowserOpener { url in
            guard NSWorkspace.shared.open(url) else { throw ChappieAuthError.browserUnavailable("the default browser did not open") }
        }
        #elseif os(Linux)
        return ChappieBrowserOpener { url in try LinuxBrowser.open(url) }
        #else
        return ChappieBrowserOpener { _ in throw ChappieAuthError.browserUnavailable("this platform has no default browser") }
        #endif
    }
}

#if os(Linux)
/// `xdg-open <url>`, found on `PATH`; no browser when it is missing or fails at once.
enum LinuxBrowser {
    static func open(_ url: URL) throws {
        let environment = ProcessInfo.processInfo.environment
        let directories = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        guard let tool = directories.map({ $0 + "/xdg-open" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw ChappieAuthError.browserUnavailable("xdg-open is not installed")
        }
        guard environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil else {
            throw ChappieAuthError.browserUnavailable("no graphical session (DISPLAY is not set)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = [url.absoluteString]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { throw ChappieAuthError.browserUnavailable("xdg-open could not be started") }
    }
}
#endif

#if canImport(AuthenticationServices) && os(iOS)
/// Presents the page in an `ASWebAuthenticationSession` with a callback scheme nothing answers:
/// the redirect goes to the SDK's loopback listener, and the sheet is cancelled once it arrived.
/// The session is ephemeral, so the page does not stay in the shared browser history.
@MainActor
final class WebAuthenticationBox: NSObject, ASWebAuthenticationPresentationContextProviding {
    private var session: ASWebAuthenticationSession?
    /// The window the sheet is presented from, chosen on the main actor before it starts.
    nonisolated(unsafe) private var anchor: ASPresentationAnchor?

    func start(_ url: URL) throws {
        let scenes = UIApplication.shared.connectedScenes.compactMap { $0 as? UIWindowScene }
        anchor = scenes.flatMap(\.windows).first { $0.isKeyWindow } ?? ASPresentationAnchor()
        let session = ASWebAuthenticationSession(url: url, callbackURLScheme: Wire.placeholderScheme) { _, _ in }
        session.presentationContextProvider = self
        session.prefersEphemeralWebBrowserSession = true
        guard session.start() else { throw ChappieAuthError.browserUnavailable("the sign-in sheet could not be shown") }
        self.session = session
    }

    func cancel() {
        session?.cancel()
        session = nil
    }

    nonisolated func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        // Set by start(_:) before the session starts, and only read while it is shown.
        anchor!
    }

    private enum Wire {
        /// Never registered by any app: the sheet never completes by itself.
        static let placeholderScheme = "chappie-siwc-loopback"
    }
}
#endif
