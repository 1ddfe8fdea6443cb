import Foundation

/// The SIWC consent page the authorize endpoint shows (SIWC.md §2.3): who is signing in, the app
/// name (editable, as on the real page), a checkbox for ChatGPT plan usage (the
/// `chatgpt.tokens.use.direct` scope; unticking it declines plan usage), and Approve / Deny
/// buttons posting to `/api/accounts/authorize/consent`. Every page is `no-store`, may not be
/// framed, and holds no token or code. Its referrer policy is `same-origin`, not `no-referrer`:
/// with `no-referrer` a browser sends `Origin: null` with the form post (Fetch §3.1, serializing
/// a request origin), which the emulator refuses as cross-origin; the redirect that answers the
/// post is `no-referrer`, so the app's callback never sees the issuer's URL.
enum ConsentPage {
    /// The consent form for `request`, waiting under `consentID`.
    static func page(consentID: String, request: SignInWithChatGPTStore.AuthorizationRequest, email: String, asksForPlanUsage: Bool)
        -> HTTPResponse
    {
        let planUsage = asksForPlanUsage
            ? """
            <p><label><input type="checkbox" id="plan_usage" name="plan_usage" value="on" checked> \
            Let this app use your ChatGPT plan</label></p>

            """
            : ""
        let scopes = request.scopes.map { "<li>\(escape($0))</li>" }.joined()
        return respond(200, """
            <p id="account">Signed in as <strong>\(escape(email))</strong></p>
            <form method="post" action="\(Wire.consentPath)">
            <input type="hidden" name="consent_id" value="\(escape(consentID))">
            <p><label for="app_name">App name</label></p>
            <p><input id="app_name" name="app_name" value="\(escape(request.appName))" maxlength="100" required></p>
            <p>The app asks for:</p><ul id="scopes">\(scopes)</ul>
            \(planUsage)<p><button type="submit" id="approve" name="action" value="approve">Approve</button>
            <button type="submit" id="deny" name="action" value="deny">Deny</button></p>
            </form>
            """)
    }

    /// A 400 page for a request that cannot be redirected back (bad client or redirect URI).
    static func errorPage(_ code: String, _ description: String) -> HTTPResponse {
        respond(400, "<p id=\"error\" role=\"alert\"><code>\(escape(code))</code>: \(escape(description))</p>")
    }

    private static func respond(_ status: Int, _ body: String) -> HTTPResponse {
        let page = """
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
        return HTTPResponse(status: status, headers: [
            (Wire.contentType, Wire.html), (Wire.cacheControl, Wire.noStore), (Wire.frameOptions, Wire.deny),
            (Wire.contentSecurityPolicy, Wire.policy), (Wire.referrerPolicy, Wire.sameOrigin),
        ], body: .bytes(Data(page.utf8)))
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private enum Wire {
        static let title = "Chappie emulator: Sign in with ChatGPT"
        static let consentPath = "/api/accounts/authorize/consent"
        static let contentType = "Content-Type"
        static let html = "text/html; charset=utf-8"
        static let cacheControl = "Cache-Control"
        static let noStore = "no-store"
        static let frameOptions = "X-Frame-Options"
        static let deny = "DENY"
        static let contentSecurityPolicy = "Content-Security-Policy"
        static let policy = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http://127.0.0.1:*; frame-ancestors 'none'"
        static let referrerPolicy = "Referrer-Policy"
        static let sameOrigin = "same-origin"
    }
}
