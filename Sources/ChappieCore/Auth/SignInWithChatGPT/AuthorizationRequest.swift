import ChappieTransport
import Foundation

/// One authorization attempt's secrets and the authorize URL built from them (OAuth 2.0 RFC 6749
/// §4.1.1, PKCE RFC 7636 §4, OIDC Core §3.1.2.1; the parameters of SIWC.md §2.3).
///
/// `state`, `nonce` and the PKCE verifier are 32 random bytes each (43 base64url characters).
/// The URL holds the state, the nonce and the S256 challenge, never the verifier; it may hold the
/// account's last ID token as `id_token_hint`, so it is never logged.
struct AuthorizationRequest: Sendable, CustomStringConvertible {
    let state: String
    let nonce: String
    let codeVerifier: String
    let redirectURI: String
    /// The issued client id, or nil for a first registration (`dynamic_agent_client`).
    let clientID: String?

    /// What goes into the URL besides the secrets.
    struct Parameters: Sendable {
        var authorizationEndpoint: URL
        var clientID: String?
        var appName: String
        var hostID: String
        var redirectURI: String
        var resource: String
        var idTokenHint: String?
        var loginHint: String?
        var promptConsent: Bool
    }

    /// A fresh attempt for `clientID` (nil: a first registration) and `redirectURI`.
    init(clientID: String?, redirectURI: String) {
        state = Self.randomToken()
        nonce = Self.randomToken()
        codeVerifier = Self.randomToken()
        self.redirectURI = redirectURI
        self.clientID = clientID
        Redaction.register(codeVerifier)
    }

    /// BASE64URL-NOPAD(SHA-256(verifier)) (RFC 7636 §4.2).
    var codeChallenge: String { Self.challenge(for: codeVerifier) }

    static func challenge(for verifier: String) -> String { Base64URL.encode(Data(SHA256.hash(Array(verifier.utf8)))) }

    /// 32 random bytes from the system's CSPRNG, base64url without padding.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode(Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }))
    }

    /// The authorize URL: every value percent-encoded, in the documented order.
    func url(_ parameters: Parameters) -> URL {
        var items: [(String, String)] = [
            (Wire.responseType, Wire.code),
            (Wire.clientID, parameters.clientID ?? Wire.dynamicClient),
        ]
        if parameters.clientID == nil { items.append((Wire.agentNameHint, parameters.appName)) }
        items.append((Wire.hostID, parameters.hostID))
        if parameters.clientID != nil {
            if let hint = parameters.idTokenHint { items.append((Wire.idTokenHint, hint)) }
            if let hint = parameters.loginHint { items.append((Wire.loginHint, hint)) }
        }
        items += [
            (Wire.redirectURI, parameters.redirectURI),
            (Wire.scope, Wire.scopes.joined(separator: " ")),
            (Wire.resource, parameters.resource),
            (Wire.state, state),
            (Wire.nonce, nonce),
            (Wire.codeChallenge, codeChallenge),
            (Wire.codeChallengeMethod, Wire.s256),
        ]
        if parameters.promptConsent { items.append((Wire.prompt, Wire.consent)) }
        let query = items.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
        var text = parameters.authorizationEndpoint.absoluteString
        text += text.contains("?") ? "&" : "?"
        return URL(string: text + query)!
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters (so a space is `%20`, `@` is `%40`).
    static func escape(_ text: String) -> String {
        var allowed = CharacterSet()
        allowed.insert(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// No secret of the attempt.
    var description: String { "AuthorizationRequest(redirectURI: \(redirectURI), secrets: [redacted])" }

    enum Wire {
        static let responseType = "response_type"
        static let code = "code"
        static let clientID = "client_id"
        static let dynamicClient = "dynamic_agent_client"
        static let agentNameHint = "agent_name_hint"
        static let hostID = "ext_agent_host_id"
        static let idTokenHint = "id_token_hint"
        static let loginHint = "login_hint"
        static let redirectURI = "redirect_uri"
        static let scope = "scope"
        static let scopes = ["openid", "profile", "email", "offline_access", "resource.invoke", "chatgpt.tokens.use.direct"]
        static let resource = "resource"
        static let state = "state"
        static let nonce = "nonce"
        static let codeChallenge = "code_challenge"
        static let codeChallengeMethod = "code_challenge_method"
        static let s256 = "S256"
        static let prompt = "prompt"
        static let consent = "consent"
    }
}
