import ChappieSDK
import Foundation

/// Runs the device-code sign-in and shows the code, the URL and progress on the terminal.
@MainActor
enum SignInPresenter {
    /// Signs in with `session`; prints the user code and verification URL. Throws ``ChappieAuthError``.
    static func signIn(_ session: ChappieAuthSession, json: Bool) async throws {
        try await session.startDeviceCodeSignIn { code in
            if json {
                Terminal.line(#"{"event":"device_code","user_code":"\#(code.userCode)","verification_url":"\#(code.verificationURL.absoluteString)"}"#)
                return
            }
            let minutes = Int(code.expiresAt.timeIntervalSinceNow / 60 + 0.5)
            Terminal.line("To sign in, open \(Terminal.bold(code.verificationURL.absoluteString))")
            Terminal.line("and enter the code   \(Terminal.bold(code.userCode))")
            Terminal.line(Terminal.dim("The code works for about \(minutes) minutes. Never share it: anyone with it can sign in as you."))
            Terminal.line(Terminal.dim("Waiting for approval…"))
        }
        if !json {
            let info = session.accountInfo
            Terminal.line("Signed in\(info?.email.map { " as \($0)" } ?? "")\(info?.plan.map { " (\($0.displayName))" } ?? "").")
        }
    }
}
