import ChappieSDK
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `chappie login --siwc`: runs Sign in with ChatGPT, prints the sign-in page's URL (it holds no
/// token, code or verifier) and waits for the browser to come back to the SDK's listener on
/// 127.0.0.1; then says who signed in, whether ChatGPT plan usage is enabled, and, the first time
/// it is, the one-time notice.
@MainActor
enum SignInWithChatGPTPresenter {
    /// The app name sent at the first registration (the user can edit it on the consent page).
    static let defaultAppName = "Chappie CLI"

    /// Signs in; with `drivesRedirect` (the in-process emulator) the CLI follows the emulator's
    /// automatic approval itself instead of a browser. Throws ``ChappieAuthError``.
    static func signIn(_ session: ChappieAuthSession, _ arguments: ParsedArguments, drivesRedirect: Bool) async throws {
        let json = arguments.flag("json")
        let noBrowser = arguments.flag("no-browser")
        let port = arguments.option("port").flatMap { UInt16($0) }
        if let text = arguments.option("port"), port == nil { throw UsageError(message: "--port needs a number from 1 to 65535, not \(text)") }
        let issuer = session.configuration.endpoints.authIssuer
        let issuerIsLocal = issuer.scheme == "http" && ChappieEndpoints.allowsSecrets(to: issuer)
        let opener = ChappieBrowserOpener { url in
            if json {
                Terminal.jsonLine(ChappieJSONValue.object(["event": "authorize_url", "url": .string(url.absoluteString)]))
            } else {
                Terminal.line("To sign in with ChatGPT, open:")
                Terminal.line(Terminal.bold(Terminal.sanitizedLine(url.absoluteString)))
            }
            if noBrowser {
                if !json { Terminal.line(Terminal.dim("Waiting for the browser to come back to this machine…")) }
                return
            }
            if drivesRedirect {
                // The in-process emulator approves at once: follow its redirect as a browser would.
                Task.detached { await LoopbackRedirectFollower.follow(url) }
                return
            }
            let opened = DesktopIntegration.openInBrowser(url)
            if !opened && issuerIsLocal {
                // A local emulator that approves automatically needs no browser either.
                Task.detached { await LoopbackRedirectFollower.follow(url) }
            }
            if !json {
                Terminal.line(Terminal.dim(opened ? "Opened the page in your browser; waiting for it to come back…"
                    : "Open the page yourself (no browser opener or display found); waiting…"))
            }
        }
        let result = try await session.signInWithChatGPT(
            appName: arguments.option("app-name") ?? defaultAppName, enablePlanUsage: arguments.flag("enable-plan-usage"),
            timeout: .seconds(600), openURL: opener, preferredPort: port, startNewRegistration: arguments.flag("new-registration"))
        if result.showsPlanUsageNotice { try? session.acknowledgePlanUsageNotice() }
        if json {
            Terminal.jsonLine(ChappieJSONValue.object([
                "event": "signed_in", "route": "sign_in_with_chatgpt",
                "email": result.account.email.map(ChappieJSONValue.string) ?? .null,
                "registration": .string(result.registrationLabel),
                "plan_usage_enabled": .bool(result.planUsageEnabled), "first_plan_usage": .bool(result.showsPlanUsageNotice),
            ]))
            return
        }
        Terminal.line("Signed in with ChatGPT as \(Terminal.sanitizedLine(result.registrationLabel)).")
        if result.planUsageEnabled {
            Terminal.line("ChatGPT plan usage is enabled.")
        } else {
            Terminal.line("ChatGPT plan usage is not enabled, so this app cannot use your plan. "
                + "To enable it, run `chappie login --siwc --enable-plan-usage`.")
        }
        if result.showsPlanUsageNotice {
            Terminal.line()
            Terminal.line(Terminal.bold(FirstUseNotice.title))
            Terminal.line(FirstUseNotice.body)
            Terminal.line("Manage usage: \(FirstUseNotice.manageUsageURL)")
        }
    }

    /// The one-time notice shown the first time plan usage is enabled.
    enum FirstUseNotice {
        static let title = "You're using your ChatGPT plan"
        static let body = "Eligible usage in this app uses your ChatGPT plan. Manage usage in your ChatGPT settings."
        static let manageUsageURL = "https://chatgpt.com/settings/usage"
    }
}

/// Follows an emulator's automatic approval without a browser: fetches the authorize URL without
/// following redirects, and when it answers with a redirect to this machine, requests that URL
/// (the SDK's listener). Anything else (a consent page) is left for a person.
enum LoopbackRedirectFollower {
    static func follow(_ url: URL) async {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 15
        let session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        // A few tries: a busy machine can drop a loopback connection, and nothing else would
        // bring the sign-in back (it would wait for its own deadline).
        for attempt in 1...5 {
            if attempt > 1 { try? await Task.sleep(for: .milliseconds(200 * attempt)) }
            guard let (_, response) = try? await session.data(from: url), let http = response as? HTTPURLResponse,
                  (300..<400).contains(http.statusCode), let location = http.value(forHTTPHeaderField: "Location"),
                  let target = URL(string: location), target.host == "127.0.0.1"
            else { continue }
            if (try? await session.data(from: target)) != nil { return }
        }
    }

    /// Refuses every redirect, so the answer's `Location` can be checked first.
    final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }
}
