/// The bearer check of the public API under Sign in with ChatGPT (SIWC.md §6.2–6.3): the token
/// must be a live access token of the SIWC issuer, never a Codex one.
///
/// * no bearer, an unknown token (a Codex token included), a revoked one, or one of a deleted
///   registration: 401 `{"detail":"…"}` (the signed identity was not accepted);
/// * an expired token: 401 with `error.code` `token_expired` (🔶 the real code is not documented);
/// * a token without `chatgpt.tokens.use.direct` where plan usage is needed: 403
///   `chatpass_v2_scope_not_authorized`.
enum PublicAPIAuthorization {
    /// What the check decided.
    enum Outcome: Sendable {
        /// Allowed: the token's client id and granted scopes.
        case allowed(clientID: String, scopes: [String])
        /// Refused with this answer.
        case refused(HTTPResponse)
    }

    /// Checks `request`'s bearer; `requiresPlanUsage` demands the plan-usage scope.
    static func check(_ request: HTTPRequest, services: EmulatorServices, requiresPlanUsage: Bool) async -> Outcome {
        guard let token = request.bearerToken else { return .refused(PublicAPIError.admission(401)) }
        switch await services.signInWithChatGPT.accessTokenState(token) {
        case .valid(let clientID, let scopes):
            if requiresPlanUsage && !scopes.contains(SignInWithChatGPTStore.planUsageScope) {
                return .refused(PublicAPIError.structured(403, code: Wire.scopeNotAuthorized, message: Wire.noPlanUsage))
            }
            return .allowed(clientID: clientID, scopes: scopes)
        case .expired:
            return .refused(PublicAPIError.structured(401, code: Wire.tokenExpired, message: Wire.expired))
        case .revoked, .unknown:
            return .refused(PublicAPIError.admission(401))
        }
    }

    private enum Wire {
        static let scopeNotAuthorized = "chatpass_v2_scope_not_authorized"
        static let tokenExpired = "token_expired"
        static let noPlanUsage = "The grant does not include ChatGPT plan usage (chatgpt.tokens.use.direct)."
        static let expired = "The access token has expired."
    }
}
