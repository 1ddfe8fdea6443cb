import Foundation

/// `GET /api/accounts/authorize`: the SIWC authorization request (SIWC.md §2.3, RFC 6749 §4.1.1,
/// RFC 7636, OIDC Core §3.1.2), and `POST /api/accounts/authorize/consent`, the consent page's
/// decision.
///
/// Validation, in order:
/// * `client_id`: ``SignInWithChatGPTStore/dynamicClientID`` (then `agent_name_hint` is required)
///   or an issued `oaiapp_…` id of this user (then `agent_name_hint` must be omitted). `redirect_uri`:
///   exactly `http://127.0.0.1:<port>/auth/callback`, any port. A bad client or redirect URI gets
///   a 400 page and no redirect (RFC 6749 §4.1.2.1); every later error redirects back with
///   `error`, `error_description` and `state`.
/// * `response_type=code`; `scope` of known scopes including `openid`; `resource` =
///   `https://api.openai.com/v1` (else `invalid_target`, RFC 8707); `ext_agent_host_id` as
///   `urn:ietf:params:oauth:jwk-thumbprint:…`, `urn:uuid:<v4>` or `did:key:z…`; `state`,
///   `nonce`, `code_challenge` (43 base64url characters) with `code_challenge_method=S256`;
///   optional `prompt=consent`; `id_token_hint` (an ID token this issuer made for the client, may
///   be expired, re-authorization only) and `login_hint` (the user's email). Unknown parameters
///   are ignored.
///
/// Then: a first registration, or `prompt=consent`, or a re-authorization without
/// `id_token_hint`, shows the consent page (``ConsentPage``); a re-authorization with a valid
/// `id_token_hint` redirects at once with the earlier grant. When the emulator approves device
/// codes automatically (``ChappieEmulator/Configuration/autoApproveAfterPolls`` not nil) no page
/// is shown: the request is decided at once with
/// ``ChappieEmulator/setSignInWithChatGPTConsent(_:)``'s decision (approve by default).
/// Approval redirects (302) with `code`, `scope`, `state` and `client_id`; denial with
/// `error=access_denied` and `state`.
struct AuthorizeEndpoint {
    /// The shared state.
    let services: EmulatorServices

    /// Validates the request, then shows the consent page or redirects.
    func authorize(_ request: HTTPRequest) async -> HTTPResponse {
        let query = request.queryItems
        let store = services.signInWithChatGPT
        guard let clientID = query[Wire.clientID], !clientID.isEmpty else {
            return ConsentPage.errorPage(Wire.invalidRequest, Wire.missing(Wire.clientID))
        }
        let registration = await store.registration(clientID)
        guard clientID == SignInWithChatGPTStore.dynamicClientID || registration != nil else {
            return ConsentPage.errorPage(Wire.invalidClient, Wire.unknownClient)
        }
        guard let redirectURI = query[Wire.redirectURI], Self.isLoopbackCallback(redirectURI) else {
            return ConsentPage.errorPage(Wire.invalidRequest, Wire.badRedirect)
        }
        let state = query[Wire.state] ?? ""
        func fail(_ code: String, _ description: String) -> HTTPResponse {
            Self.redirect(redirectURI, [(Wire.error, code), (Wire.errorDescription, description)] + (state.isEmpty ? [] : [(Wire.state, state)]))
        }
        guard query[Wire.responseType] == Wire.code else { return fail(Wire.unsupportedResponseType, Wire.responseTypeCode) }
        guard !state.isEmpty else { return fail(Wire.invalidRequest, Wire.missing(Wire.state)) }
        let scopes = (query[Wire.scope] ?? "").split(separator: " ").map(String.init)
        guard scopes.contains(Wire.openID) else { return fail(Wire.invalidScope, Wire.openIDRequired) }
        if let unknown = scopes.first(where: { !SignInWithChatGPTStore.knownScopes.contains($0) }) {
            return fail(Wire.invalidScope, Wire.unknownScope(unknown))
        }
        guard query[Wire.resource] == SignInWithChatGPTStore.apiResource else { return fail(Wire.invalidTarget, Wire.badResource) }
        let appName: String
        if let registration {
            guard query[Wire.agentNameHint] == nil else { return fail(Wire.invalidRequest, Wire.hintOnReauthorization) }
            appName = registration.appName
        } else {
            guard let hint = query[Wire.agentNameHint]?.trimmingCharacters(in: .whitespaces), !hint.isEmpty else {
                return fail(Wire.invalidRequest, Wire.missing(Wire.agentNameHint))
            }
            appName = hint
        }
        guard let hostID = query[Wire.hostID], Self.isHostIdentifier(hostID) else {
            return fail(Wire.invalidRequest, Wire.badHostID)
        }
        guard let nonce = query[Wire.nonce], !nonce.isEmpty else { return fail(Wire.invalidRequest, Wire.missing(Wire.nonce)) }
        guard query[Wire.codeChallengeMethod] == Wire.s256 else { return fail(Wire.invalidRequest, Wire.s256Required) }
        guard let challenge = query[Wire.codeChallenge], Self.isChallenge(challenge) else {
            return fail(Wire.invalidRequest, Wire.badChallenge)
        }
        if let prompt = query[Wire.prompt], prompt != Wire.consent { return fail(Wire.invalidRequest, Wire.badPrompt) }
        var hasHint = false
        if let hint = query[Wire.idTokenHint] {
            guard registration != nil, await store.isIDToken(hint, of: clientID) else {
                return fail(Wire.invalidRequest, Wire.badIDTokenHint)
            }
            hasHint = true
        }
        if let loginHint = query[Wire.loginHint], loginHint.lowercased() != services.configuration.account.email.lowercased() {
            return fail(Wire.loginRequired, Wire.otherAccount)
        }
        let authorization = SignInWithChatGPTStore.AuthorizationRequest(
            clientID: clientID, redirectURI: redirectURI, scopes: scopes, state: state, nonce: nonce, codeChallenge: challenge,
            appName: appName, hostID: hostID, forcesConsent: query[Wire.prompt] == Wire.consent, hasIDTokenHint: hasHint
        )
        let needsConsent = authorization.isRegistration || authorization.forcesConsent
        if services.configuration.autoApproveAfterPolls != nil {
            let decision = await store.automaticDecision
            return await decide(
                authorization, approve: needsConsent ? decision != .deny : true,
                planUsage: decision == .approve, appName: nil, consented: needsConsent
            )
        }
        if !needsConsent && hasHint {
            return await decide(authorization, approve: true, planUsage: true, appName: nil, consented: false)
        }
        let consentID = await store.holdForConsent(authorization)
        return ConsentPage.page(
            consentID: consentID, request: authorization, email: services.configuration.account.email,
            asksForPlanUsage: scopes.contains(SignInWithChatGPTStore.planUsageScope)
        )
    }

    /// Applies the consent page's form post (`consent_id`, `action`, `app_name`, `plan_usage`).
    func consent(_ request: HTTPRequest) async -> HTTPResponse {
        let fields = FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self))
        guard let consentID = fields[Wire.consentID], let pending = await services.signInWithChatGPT.takePendingConsent(consentID)
        else { return ConsentPage.errorPage(Wire.invalidRequest, Wire.unknownConsent) }
        let approve = fields[Wire.action] == Wire.approve
        let needsConsent = pending.isRegistration || pending.forcesConsent
        return await decide(
            pending, approve: approve, planUsage: fields[Wire.planUsage] != nil,
            appName: fields[Wire.appName]?.trimmingCharacters(in: .whitespacesAndNewlines), consented: needsConsent
        )
    }

    private func decide(
        _ request: SignInWithChatGPTStore.AuthorizationRequest, approve: Bool, planUsage: Bool, appName: String?, consented: Bool
    ) async -> HTTPResponse {
        let decision = await services.signInWithChatGPT.decide(
            request, approve: approve, planUsage: planUsage, appName: appName, consented: consented
        )
        switch decision {
        case .denied:
            return Self.redirect(request.redirectURI, [(Wire.error, Wire.accessDenied), (Wire.state, request.state)])
        case .approved(let code, let scopes, let clientID):
            return Self.redirect(request.redirectURI, [
                (Wire.code, code), (Wire.scope, scopes.joined(separator: " ")), (Wire.state, request.state), (Wire.clientID, clientID),
            ])
        }
    }

    /// A 302 to `target` with `parameters` form-encoded (spaces as `+`, as the real callback shows).
    static func redirect(_ target: String, _ parameters: [(String, String)]) -> HTTPResponse {
        let query = FormURLEncoding.encode(parameters).replacingOccurrences(of: "%20", with: "+")
        return HTTPResponse(status: 302, headers: [
            (Wire.location, target + (target.contains("?") ? "&" : "?") + query),
            (Wire.cacheControl, Wire.noStore), (Wire.referrerPolicy, Wire.noReferrer),
        ], body: .bytes(Data()))
    }

    /// Whether `uri` is `http://127.0.0.1:<port>/auth/callback` with a port of 1–65535 and nothing else.
    static func isLoopbackCallback(_ uri: String) -> Bool {
        guard uri.hasPrefix(Wire.callbackPrefix), uri.hasSuffix(Wire.callbackPath) else { return false }
        let port = uri.dropFirst(Wire.callbackPrefix.count).dropLast(Wire.callbackPath.count)
        guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }), port.first != "0",
            let number = Int(port), number <= 65535
        else { return false }
        return true
    }

    /// Whether `value` is an accepted `ext_agent_host_id` (SIWC.md §2.2).
    static func isHostIdentifier(_ value: String) -> Bool {
        if value.hasPrefix(Wire.thumbprintPrefix) {
            let rest = value.dropFirst(Wire.thumbprintPrefix.count).split(separator: ":", omittingEmptySubsequences: false)
            return rest.count == 2 && !rest[0].isEmpty && isBase64URL(rest[1]) && rest[1].count >= 22
        }
        if value.hasPrefix(Wire.uuidPrefix) {
            let uuid = value.dropFirst(Wire.uuidPrefix.count).lowercased()
            guard UUID(uuidString: uuid) != nil, uuid.count == 36 else { return false }
            return Array(uuid)[14] == "4"
        }
        if value.hasPrefix(Wire.didKeyPrefix) {
            let key = value.dropFirst(Wire.didKeyPrefix.count)
            return key.count > 1 && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
        return false
    }

    private static func isChallenge(_ value: String) -> Bool { value.count == 43 && isBase64URL(Substring(value)) }

    private static func isBase64URL(_ text: Substring) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    private enum Wire {
        static let clientID = "client_id"
        static let redirectURI = "redirect_uri"
        static let responseType = "response_type"
        static let scope = "scope"
        static let resource = "resource"
        static let state = "state"
        static let nonce = "nonce"
        static let code = "code"
        static let codeChallenge = "code_challenge"
        static let codeChallengeMethod = "code_challenge_method"
        static let agentNameHint = "agent_name_hint"
        static let hostID = "ext_agent_host_id"
        static let prompt = "prompt"
        static let consent = "consent"
        static let idTokenHint = "id_token_hint"
        static let loginHint = "login_hint"
        static let consentID = "consent_id"
        static let action = "action"
        static let approve = "approve"
        static let appName = "app_name"
        static let planUsage = "plan_usage"
        static let error = "error"
        static let errorDescription = "error_description"
        static let openID = "openid"
        static let s256 = "S256"
        static let invalidRequest = "invalid_request"
        static let invalidClient = "invalid_client"
        static let invalidScope = "invalid_scope"
        static let invalidTarget = "invalid_target"
        static let unsupportedResponseType = "unsupported_response_type"
        static let accessDenied = "access_denied"
        static let loginRequired = "login_required"
        static let location = "Location"
        static let cacheControl = "Cache-Control"
        static let noStore = "no-store"
        static let referrerPolicy = "Referrer-Policy"
        static let noReferrer = "no-referrer"
        static let callbackPrefix = "http://127.0.0.1:"
        static let callbackPath = "/auth/callback"
        static let thumbprintPrefix = "urn:ietf:params:oauth:jwk-thumbprint:"
        static let uuidPrefix = "urn:uuid:"
        static let didKeyPrefix = "did:key:z"
        static let unknownClient = "Unknown client_id: register with dynamic_agent_client first."
        static let badRedirect = "redirect_uri must be http://127.0.0.1:<port>/auth/callback."
        static let responseTypeCode = "response_type must be code."
        static let openIDRequired = "scope must include openid."
        static let badResource = "resource must be https://api.openai.com/v1."
        static let hintOnReauthorization = "agent_name_hint is sent on the first registration only."
        static let badHostID = "ext_agent_host_id must be a JWK thumbprint URN, a urn:uuid (v4) or a did:key."
        static let s256Required = "code_challenge_method must be S256."
        static let badChallenge = "code_challenge must be 43 base64url characters."
        static let badPrompt = "prompt may only be consent."
        static let badIDTokenHint = "id_token_hint is not an ID token issued to this client."
        static let otherAccount = "login_hint names another account."
        static let unknownConsent = "This consent request is unknown or was already answered."
        static func missing(_ name: String) -> String { "Missing required parameter: \(name)." }
        static func unknownScope(_ scope: String) -> String { "Unknown scope: \(scope)." }
    }
}
