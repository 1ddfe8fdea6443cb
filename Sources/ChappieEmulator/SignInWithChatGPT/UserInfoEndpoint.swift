/// `GET /api/accounts/oauth/userinfo` of the SIWC issuer (OIDC Core §5.3; listed in discovery,
/// not used by the sign-in flow): with a live SIWC access token as bearer, the user's `sub`
/// (the same pairwise subject as the ID token), `email` and `name` as the token's scopes allow;
/// else 401 with `WWW-Authenticate: Bearer error="invalid_token"` (RFC 6750 §3.1).
struct UserInfoEndpoint {
    /// The shared state.
    let services: EmulatorServices

    /// Answers one userinfo request.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let store = services.signInWithChatGPT
        guard let token = request.bearerToken, case .valid(let clientID, let scopes) = await store.accessTokenState(token) else {
            return .json(401, [Wire.error: .string(Wire.invalidToken)], headers: [(Wire.authenticate, Wire.challenge)])
        }
        var members: [(String, JSONValue)] = [(Wire.subject, .string(await store.subject(for: clientID)))]
        if scopes.contains(Wire.email) {
            members += [(Wire.email, .string(services.configuration.account.email)), (Wire.emailVerified, true)]
        }
        if scopes.contains(Wire.profile) { members.append((Wire.name, .string(services.configuration.signInWithChatGPT.userName))) }
        return .json(200, .object(members))
    }

    private enum Wire {
        static let error = "error"
        static let invalidToken = "invalid_token"
        static let authenticate = "WWW-Authenticate"
        static let challenge = "Bearer error=\"invalid_token\""
        static let subject = "sub"
        static let email = "email"
        static let emailVerified = "email_verified"
        static let profile = "profile"
        static let name = "name"
    }
}
