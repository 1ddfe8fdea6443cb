import Foundation

/// `GET /codex/device`: the page where a user types the user code (PROTOCOL §1.1, the verification
/// URI). `POST /codex/device` with form fields `user_code` and `action` (`approve` or `deny`)
/// applies the decision and shows the result.
struct DeviceVerificationPage {
    /// The shared state.
    let services: EmulatorServices

    /// Serves the form or applies a decision.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        guard request.method == "POST" else {
            let prefilled = request.queryItems[Wire.userCode] ?? ""
            return .html(200, page(message: nil, userCode: prefilled))
        }
        let fields = FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self))
        let userCode = fields[Wire.userCode]?.trimmingCharacters(in: .whitespaces) ?? ""
        guard !userCode.isEmpty else { return .html(400, page(message: Wire.missingCode, userCode: "")) }
        switch fields[Wire.action] {
        case Wire.approve:
            let done = await services.deviceAuthorizations.approve(userCode: userCode)
            return .html(done ? 200 : 404, page(message: done ? Wire.approved : Wire.unknownCode, userCode: userCode))
        case Wire.deny:
            let done = await services.deviceAuthorizations.deny(userCode: userCode)
            return .html(done ? 200 : 404, page(message: done ? Wire.denied : Wire.unknownCode, userCode: userCode))
        default:
            return .html(400, page(message: Wire.unknownAction, userCode: userCode))
        }
    }

    private func page(message: String?, userCode: String) -> String {
        let notice = message.map { "<p id=\"result\">\(Self.escape($0))</p>\n" } ?? ""
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(Wire.title)</title></head>
            <body>
            <h1>\(Wire.title)</h1>
            \(notice)<form method="post" action="/codex/device">
            <label for="user_code">Code shown on your device</label>
            <input id="user_code" name="user_code" value="\(Self.escape(userCode))" autocomplete="off" required>
            <button type="submit" name="action" value="approve">Approve</button>
            <button type="submit" name="action" value="deny">Deny</button>
            </form>
            </body></html>

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
        static let denied = "Device sign-in denied."
        static let unknownCode = "That code is unknown, expired or already used."
        static let missingCode = "Enter the code shown on your device."
        static let unknownAction = "Choose Approve or Deny."
    }
}
