/// `GET /.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §3, RFC 8414) and
/// `GET /.well-known/jwks.json` (RFC 7517 §5) of the SIWC issuer (SIWC.md §2.1).
///
/// The document follows the 2026-08-27 capture of `auth.openai.com`'s, with the emulator's base
/// URL as issuer and every endpoint on that origin; the plan scopes are listed too (🔶: the
/// capture predates launch). No `registration_endpoint` and no `device_authorization_endpoint`,
/// as on the real issuer. While ``ChappieEmulator/setSignInWithChatGPTOutage(discovery:jwks:)``
/// is on, the document or the key set answers 503; without the system's crypto both answer 503.
struct DiscoveryEndpoint {
    /// The shared state.
    let services: EmulatorServices

    /// Serves the discovery document.
    func configuration(_ request: HTTPRequest) async -> HTTPResponse {
        guard !services.signInWithChatGPTOutage.withLock({ $0.discovery }) else { return Self.outage }
        let issuer = services.issuer
        let authMethods: JSONValue = ["client_secret_basic", "client_secret_post", "none"]
        return .json(200, [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(issuer + Wire.authorizePath),
            "token_endpoint": .string(issuer + Wire.tokenPath),
            "jwks_uri": .string(issuer + Wire.jwksPath),
            "revocation_endpoint": .string(issuer + Wire.revokePath),
            "userinfo_endpoint": .string(issuer + Wire.userInfoPath),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "subject_types_supported": ["public"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": authMethods,
            "revocation_endpoint_auth_methods_supported": authMethods,
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": .array(SignInWithChatGPTStore.knownScopes.map(JSONValue.string)),
            "claims_supported": ["aud", "email", "email_verified", "exp", "iat", "iss", "name", "nonce", "sub", "auth_time"],
            "request_parameter_supported": false,
            "request_uri_parameter_supported": false,
        ], headers: [(Wire.cacheControl, Wire.publicCache)])
    }

    /// Serves the key set: the current signing key first, then retired ones.
    func keySet(_ request: HTTPRequest) async -> HTTPResponse {
        guard !services.signInWithChatGPTOutage.withLock({ $0.jwks }) else { return Self.outage }
        let keys = await services.signInWithChatGPT.publishedKeys()
        guard !keys.isEmpty else { return Self.outage }
        return .json(200, ["keys": .array(keys.map(\.jwk))], headers: [(Wire.cacheControl, Wire.publicCache)])
    }

    private static let outage = HTTPResponse.json(503, [
        "error": "temporarily_unavailable", "error_description": "The identity service is temporarily unavailable.",
    ])

    private enum Wire {
        static let authorizePath = "/api/accounts/authorize"
        static let tokenPath = "/api/accounts/oauth/token"
        static let revokePath = "/api/accounts/oauth/revoke"
        static let userInfoPath = "/api/accounts/oauth/userinfo"
        static let jwksPath = "/.well-known/jwks.json"
        static let cacheControl = "Cache-Control"
        static let publicCache = "public, max-age=300"
    }
}
