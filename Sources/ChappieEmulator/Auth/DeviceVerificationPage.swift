import Foundation

/// `GET /codex/device`: the page where a user types the user code (PROTOCOL §1.1, the verification
/// URI); `?user_code=` pre-fills the field. `POST /codex/device` with form fields `user_code` and
/// `action` (`approve` or `deny`) applies the decision and shows a result page without the form;
/// an unknown, expired or used code shows the form again with the reason (HTTP 404).
struct DeviceVerificationPage {
    /// The shared state.
    let services: EmulatorServices

    /// Serves the form or applies a decision.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        guard request.method == "POST" else {
            let prefilled = request.queryItems[Wire.userCode] ?? ""
            return .html(200, form(notice: nil, userCode: prefilled))
        }
        let fields = FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self))
        let userCode = fields[Wire.userCode]?.trimmingCharacters(in: .whitespaces) ?? ""
        guard !userCode.isEmpty else { return .html(400, form(notice: Wire.missingCode, userCode: "")) }
        switch fields[Wire.action] {
        case Wire.approve:
            let done = await services.deviceAuthorizations.approve(userCode: userCode)
            return done ? .html(200, result(Wire.approved)) : .html(404, form(notice: Wire.unknownCode, userCode: userCode))
        case Wire.deny:
            let done = await services.deviceAuthorizations.deny(userCode: userCode)
            return done ? .html(200, result(Wire.denied)) : .html(404, form(notice: Wire.unknownCode, userCode: userCode))
        default:
            return .html(400, form(notice: Wire.unknownAction, userCode: userCode))
        }
    }

    /// The code form, with `notice` (why the last attempt failed) above it as an alert.
    private func form(notice: String?, userCode: String) -> String {
        let alert = notice.map { "<p id=\"result\" role=\"alert\">\(Self.escape($0))</p>\n" } ?? ""
        return document(
            """
            \(alert)<form method="post" action="/codex/device">
            <p><label for="user_code">Code shown on your device</label></p>
            <p><input id="user_code" name="user_code" value="\(Self.escape(userCode))" autocomplete="off" \
            autocapitalize="characters" spellcheck="false" required autofocus></p>
            <p><button type="submit" name="action" value="approve">Approve</button>
            <button type="submit" name="action" value="deny">Deny</button></p>
            </form>
            """)
    }

    /// The outcome of a decision, with a way back to the form.
    private func result(_ message: String) -> String {
        document(
            """
            <p id="result" role="status">\(Self.escape(message))</p>
            <p><a href="/codex/device">Sign in another device</a></p>
            """)
    }

    private func document(_ body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(Wire.title)</title>
        <style>body{font-family:sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}</style>
        </head>
        <body><main>
        <h1>\(Wire.title)</h1>
        \(body)
        </main></body></html>

        """
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private enum Wire {
        static let title = "Chappie emulator: sign in a device"
        static let userCode = "user_code"
        static let action = "action"
        static let approve = "approve"
        static let deny = "deny"
        static let approved = "Device approved. You can return to your terminal."
        static let denied = "Device sign-in denied. The device was not signed in; you can close this page."
        static let unknownCode = "That code is unknown, expired or already used."
        static let missingCode = "Enter the code shown on your device."
        static let unknownAction = "Choose Approve or Deny."
    }
}
