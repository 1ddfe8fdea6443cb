import ChappieSDK
import Foundation

/// Runs the device-code sign-in and shows the code, the URL and progress on the terminal.
@MainActor
enum SignInPresenter {
    /// Signs in with `session`; prints the user code and verification URL. Throws ``ChappieAuthError``.
    static func signIn(_ session: ChappieAuthSession, json: Bool, desktop: Bool = true) async throws {
        let progress = ProgressLine()
        defer { progress.stop() }
        // Until the sign-in server hands out a code (a slow one takes up to 30 s).
        if !json { progress.startWaiting("Waiting for the sign-in server") }
        try await session.startDeviceCodeSignIn { code in
            progress.stop()
            let url = code.verificationURL
            if json {
                Terminal.jsonLine(ChappieJSONValue.object(["event": "device_code", "user_code": .string(code.userCode),
                                                       "verification_url": .string(url.absoluteString),
                                                       "expires_at": .integer(Int(code.expiresAt.timeIntervalSince1970))]))
                return
            }
            let minutes = Int(code.expiresAt.timeIntervalSinceNow / 60 + 0.5)
            // The code and the page come from the sign-in server: sanitized before printing.
            Terminal.line("To sign in, open \(Terminal.bold(Terminal.sanitizedLine(url.absoluteString)))")
            Terminal.line("and enter the code   \(Terminal.bold(Terminal.sanitizedLine(code.userCode)))")
            if desktop, Terminal.stdoutIsTerminal, let qr = DesktopIntegration.qrCode(url.absoluteString) {
                Terminal.write(qr)
            }
            if desktop {
                let copied = DesktopIntegration.copyToClipboard(code.userCode)
                let opened = DesktopIntegration.openInBrowser(url)
                Terminal.line(Terminal.dim(copied ? "The code is on your clipboard." : "Copy the code by hand (no clipboard tool or display found)."))
                Terminal.line(Terminal.dim(opened ? "Opened the page in your browser." : "Open the page yourself (no browser opener or display found)."))
            }
            Terminal.line(Terminal.dim("The code works for about \(minutes) minutes. Never share it: anyone with it can sign in as you."))
            if Terminal.colors {
                progress.start("Waiting for approval", until: code.expiresAt)
            } else {
                Terminal.line("Waiting for approval…")
            }
        }
        progress.stop()
        let info = session.accountInfo
        if json {
            Terminal.jsonLine(ChappieJSONValue.object([
                "event": "signed_in", "email": info?.email.map(ChappieJSONValue.string) ?? .null,
                "plan": info?.plan.map { .string($0.rawValue) } ?? .null,
                "account_id": info?.accountID.map(ChappieJSONValue.string) ?? .null,
            ]))
        } else {
            Terminal.line("Signed in\(info?.email.map { " as " + Terminal.sanitizedLine($0) } ?? "")\(info?.plan.map { " (\(Terminal.sanitizedLine($0.displayName)))" } ?? "").")
        }
    }
}
