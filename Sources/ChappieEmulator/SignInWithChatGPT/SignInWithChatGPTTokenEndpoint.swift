import Foundation

/// `POST /api/accounts/oauth/token` of the SIWC issuer (SIWC.md §2.5–2.8, RFC 6749 §4.1.3, §6).
///
/// Form bodies only (`application/x-www-form-urlencoded`; JSON is 400 `invalid_request`). The
/// `client_id` must be an issued `oaiapp_…` id whose registration exists: `dynamic_agent_client`,
/// the Codex CLI's client and unknown ids are 401 `invalid_client`.
/// * `authorization_code`: `code`, `code_verifier` (S256), the byte-identical `redirect_uri` and
///   `resource=https://api.openai.com/v1` (else 400 `invalid_target`); a used, expired, foreign or
///   mismatched code is 400 `invalid_grant`.
/// * `refresh_token`: `refresh_token` and `resource`; an optional `scope` may only narrow the
///   grant. Rotation: the presented token is spent; presenting it again is 400
///   `refresh_token_reused` and ends the session; a revoked one is `refresh_token_invalidated`,
///   an expired one `refresh_token_expired`, an unknown or foreign one `invalid_grant`.
///
/// Success: 200 `no-store` JSON with `access_token`, `refresh_token`, `id_token`,
/// `token_type: "Bearer"`, `expires_in: 3600`, `scope` and `earliest_refresh_at` (Unix seconds;
/// the emulator allows a refresh at once and enforces nothing). Errors use the OAuth shape
/// `{"error","error_description"}`. A queued ``ChappieEmulator/SignInWithChatGPTTokenFault``
/// answers instead.
struct SignInWithChatGPTTokenEndpoint {
    /// The shared state.
    let services: EmulatorServices

    /// Answers one grant request.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let store = services.signInWithChatGPT
        await store.countTokenEndpointCall()
        let contentType = request.header(Wire.contentType)?.lowercased() ?? ""
        guard contentType.hasPrefix(Wire.formType) else { return Self.error(400, Wire.invalidRequest, Wire.formOnly) }
        let fields = FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self))
        guard let grantType = fields[Wire.grantType], !grantType.isEmpty else {
            return Self.error(400, Wire.invalidRequest, Wire.missing(Wire.grantType))
        }
        guard let clientID = fields[Wire.clientID], !clientID.isEmpty else {
            return Self.error(400, Wire.invalidRequest, Wire.missing(Wire.clientID))
        }
        guard clientID != SignInWithChatGPTStore.dynamicClientID else { return Self.error(401, Wire.invalidClient, Wire.entryPoint) }
        guard await store.registration(clientID) != nil else { return Self.error(401, Wire.invalidClient, Wire.unknownClient) }
        guard grantType == Wire.authorizationCode || grantType == Wire.refreshToken else {
            return Self.error(400, Wire.unsupportedGrantType, Wire.unsupported(grantType))
        }
        if let fault = await services.signInWithChatGPTTokenFaults.next(accountID: grantType) {
            return await answer(fault, grantType: grantType, fields: fields)
        }
        guard fields[Wire.resource] == SignInWithChatGPTStore.apiResource else {
            return Self.error(400, fields[Wire.resource] == nil ? Wire.invalidRequest : Wire.invalidTarget, Wire.badResource)
        }
        let result: Result<SignInWithChatGPTStore.TokenSet, SignInWithChatGPTStore.GrantFailure>
        if grantType == Wire.authorizationCode {
            for name in [Wire.code, Wire.codeVerifier, Wire.redirectURI] where (fields[name] ?? "").isEmpty {
                return Self.error(400, Wire.invalidRequest, Wire.missing(name))
            }
            result = await store.exchange(
                code: fields[Wire.code]!, clientID: clientID, verifier: fields[Wire.codeVerifier]!,
                redirectURI: fields[Wire.redirectURI]!, issuer: services.issuer
            )
        } else {
            guard let refreshToken = fields[Wire.refreshToken], !refreshToken.isEmpty else {
                return Self.error(400, Wire.invalidRequest, Wire.missing(Wire.refreshToken))
            }
            let scopes = fields[Wire.scope].map { $0.split(separator: " ").map(String.init) }
            result = await store.refresh(refreshToken, clientID: clientID, scopes: scopes, issuer: services.issuer)
        }
        switch result {
        case .success(let tokens): return Self.success(tokens)
        case .failure(let failure): return Self.error(failure.status, failure.code, failure.description)
        }
    }

    private func answer(
        _ fault: ChappieEmulator.SignInWithChatGPTTokenFault, grantType: String, fields: [String: String]
    ) async -> HTTPResponse {
        func spend(_ code: String, status: Int) async {
            guard status < 500 else { return }
            if grantType == Wire.authorizationCode, let presented = fields[Wire.code] {
                await services.signInWithChatGPT.spendCode(presented)
            } else if let presented = fields[Wire.refreshToken] {
                await services.signInWithChatGPT.spendRefreshToken(presented, reused: code == Wire.reusedCode)
            }
        }
        switch fault {
        case .oauthError(let status, let code):
            await spend(code, status: status)
            return Self.error(status, code, Wire.scriptedDescription)
        case .openAIError(let status, let code):
            await spend(code, status: status)
            return .json(status, [
                Wire.error: [
                    Wire.code: .string(code), Wire.message: .string(Wire.scriptedDescription),
                    Wire.type: .string(Wire.invalidRequestError), Wire.param: .null,
                ]
            ], headers: Self.noStore)
        case .httpError(let status, let body, let headers):
            return HTTPResponse(status: status, headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, body: .bytes(Data(body.utf8)))
        case .dropConnection:
            return HTTPResponse(status: 200, headers: [], body: .drop)
        }
    }

    private static func success(_ tokens: SignInWithChatGPTStore.TokenSet) -> HTTPResponse {
        .json(200, [
            Wire.accessToken: .string(tokens.accessToken),
            Wire.refreshToken: .string(tokens.refreshToken),
            Wire.idToken: .string(tokens.idToken),
            Wire.tokenType: .string(Wire.bearer),
            Wire.expiresIn: .int(tokens.expiresIn),
            Wire.scope: .string(tokens.scopes.joined(separator: " ")),
            Wire.earliestRefreshAt: .int(tokens.earliestRefreshAt),
        ], headers: noStore)
    }

    private static func error(_ status: Int, _ code: String, _ description: String) -> HTTPResponse {
        .json(status, [Wire.error: .string(code), Wire.errorDescription: .string(description)], headers: noStore)
    }

    private static let noStore: [(name: String, value: String)] = [("Cache-Control", "no-store"), ("Pragma", "no-cache")]

    private enum Wire {
        static let contentType = "Content-Type"
        static let formType = "application/x-www-form-urlencoded"
        static let grantType = "grant_type"
        static let clientID = "client_id"
        static let code = "code"
        static let codeVerifier = "code_verifier"
        static let redirectURI = "redirect_uri"
        static let resource = "resource"
        static let refreshToken = "refresh_token"
        static let scope = "scope"
        static let authorizationCode = "authorization_code"
        static let accessToken = "access_token"
        static let idToken = "id_token"
        static let tokenType = "token_type"
        static let expiresIn = "expires_in"
        static let earliestRefreshAt = "earliest_refresh_at"
        static let bearer = "Bearer"
        static let error = "error"
        static let errorDescription = "error_description"
        static let message = "message"
        static let type = "type"
        static let param = "param"
        static let invalidRequestError = "invalid_request_error"
        static let invalidRequest = "invalid_request"
        static let invalidClient = "invalid_client"
        static let invalidTarget = "invalid_target"
        static let unsupportedGrantType = "unsupported_grant_type"
        static let reusedCode = "refresh_token_reused"
        static let formOnly = "The token endpoint accepts application/x-www-form-urlencoded bodies only."
        static let entryPoint = "dynamic_agent_client is only an entry point for authorization; use the issued client_id."
        static let unknownClient = "Unknown client_id."
        static let badResource = "resource must be https://api.openai.com/v1."
        static let scriptedDescription = "Scripted by the Chappie emulator."
        static func missing(_ name: String) -> String { "Missing required parameter: \(name)." }
        static func unsupported(_ grant: String) -> String { "Unsupported grant_type: \(grant)." }
    }
}
