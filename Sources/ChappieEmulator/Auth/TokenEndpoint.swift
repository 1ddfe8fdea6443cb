import Foundation

/// `POST /oauth/token` (PROTOCOL §1.3, §2): the `authorization_code` grant that ends the device flow
/// (form-encoded; checks `code_verifier`, `redirect_uri = <issuer>/deviceauth/callback` and the
/// Codex `client_id`) and the `refresh_token` grant (JSON or form; extra fields such as `scope` are
/// ignored; rotation; reuse → 401 `refresh_token_reused`). A queued
/// ``ChappieEmulator/RefreshFault`` answers the next refresh grant instead.
struct TokenEndpoint {
    /// The shared state.
    let services: EmulatorServices

    /// Answers one grant request.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        await services.tokens.countTokenEndpointCall()
        guard let fields = RequestFields.parse(request) else {
            return OAuthErrorBody.oauth(400, Wire.invalidRequest, Wire.malformedBody)
        }
        guard let grantType = fields[Wire.grantType], !grantType.isEmpty else {
            return OAuthErrorBody.oauth(400, Wire.invalidRequest, Wire.missing(Wire.grantType))
        }
        guard let clientID = fields[Wire.clientID], !clientID.isEmpty else {
            return OAuthErrorBody.oauth(400, Wire.invalidRequest, Wire.missing(Wire.clientID))
        }
        guard clientID == TokenStore.clientID else {
            return OAuthErrorBody.oauth(401, Wire.invalidClient, Wire.unknownClient)
        }
        switch grantType {
        case Wire.authorizationCodeGrant: return await exchange(fields)
        case Wire.refreshTokenGrant: return await refresh(fields)
        default: return OAuthErrorBody.oauth(400, Wire.unsupportedGrantType, Wire.unsupported(grantType))
        }
    }

    private func exchange(_ fields: [String: String]) async -> HTTPResponse {
        for name in [Wire.code, Wire.codeVerifier, Wire.redirectURI] where (fields[name] ?? "").isEmpty {
            return OAuthErrorBody.oauth(400, Wire.invalidRequest, Wire.missing(name))
        }
        // The issuer as the client named it: the plain origin, or the TLS front end's.
        let issuers = [services.issuer] + (services.tlsPort.map { ["https://127.0.0.1:\($0)"] } ?? [])
        guard issuers.contains(where: { fields[Wire.redirectURI] == $0 + Wire.callbackPath }) else {
            return OAuthErrorBody.oauth(400, Wire.invalidGrant, Wire.redirectMismatch)
        }
        let result = await services.tokens.exchange(
            code: fields[Wire.code]!, verifier: fields[Wire.codeVerifier]!, issuer: services.issuer
        )
        switch result {
        case .success(let tokens): return Self.success(tokens)
        case .failure(.verifierMismatch): return OAuthErrorBody.oauth(400, Wire.invalidGrant, Wire.verifierMismatch)
        case .failure: return OAuthErrorBody.oauth(400, Wire.invalidGrant, Wire.invalidCode)
        }
    }

    private func refresh(_ fields: [String: String]) async -> HTTPResponse {
        guard let refreshToken = fields[Wire.refreshToken], !refreshToken.isEmpty else {
            return OAuthErrorBody.oauth(400, Wire.invalidRequest, Wire.missing(Wire.refreshToken))
        }
        let accountID = await services.tokens.accountID(ofRefreshToken: refreshToken)
        if let fault = await services.refreshFaults.next(accountID: accountID) {
            switch fault {
            case .reused:
                await services.tokens.markRefreshToken(refreshToken, as: .used)
                return OAuthErrorBody.openAI(401, code: Wire.reusedCode, message: Wire.reusedMessage)
            case .expired:
                await services.tokens.markRefreshToken(refreshToken, as: .expired)
                return OAuthErrorBody.openAI(401, code: Wire.expiredCode, message: Wire.expiredMessage)
            case .invalidated:
                await services.tokens.markRefreshToken(refreshToken, as: .revoked)
                return OAuthErrorBody.openAI(401, code: Wire.invalidatedCode, message: Wire.invalidatedMessage)
            case .httpError(let status, let body, let headers):
                return HTTPResponse(status: status, headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, body: .bytes(Data(body.utf8)))
            case .dropConnection:
                return HTTPResponse(status: 200, headers: [], body: .drop)
            }
        }
        switch await services.tokens.refresh(refreshToken, issuer: services.issuer) {
        case .success(let tokens):
            return Self.success(tokens)
        case .failure(.refreshTokenReused):
            return OAuthErrorBody.openAI(401, code: Wire.reusedCode, message: Wire.reusedMessage)
        case .failure(.refreshTokenExpired):
            return OAuthErrorBody.openAI(401, code: Wire.expiredCode, message: Wire.expiredMessage)
        case .failure:
            return OAuthErrorBody.openAI(401, code: Wire.invalidatedCode, message: Wire.invalidatedMessage)
        }
    }

    private static func success(_ tokens: TokenStore.TokenSet) -> HTTPResponse {
        .json(200, [
            Wire.idToken: .string(tokens.idToken),
            Wire.accessToken: .string(tokens.accessToken),
            Wire.refreshToken: .string(tokens.refreshToken),
            Wire.expiresIn: .int(tokens.expiresIn),
            Wire.tokenType: .string(Wire.bearer),
            Wire.scope: .string(Wire.grantedScope),
        ], headers: [("Cache-Control", "no-store"), ("Pragma", "no-cache")])
    }

    private enum Wire {
        static let grantType = "grant_type"
        static let clientID = "client_id"
        static let code = "code"
        static let codeVerifier = "code_verifier"
        static let redirectURI = "redirect_uri"
        static let refreshToken = "refresh_token"
        static let idToken = "id_token"
        static let accessToken = "access_token"
        static let expiresIn = "expires_in"
        static let tokenType = "token_type"
        static let scope = "scope"
        static let bearer = "Bearer"
        static let grantedScope = "openid profile email offline_access"
        static let callbackPath = "/deviceauth/callback"
        static let authorizationCodeGrant = "authorization_code"
        static let refreshTokenGrant = "refresh_token"
        static let invalidRequest = "invalid_request"
        static let invalidClient = "invalid_client"
        static let invalidGrant = "invalid_grant"
        static let unsupportedGrantType = "unsupported_grant_type"
        static let malformedBody = "The request body could not be parsed."
        static let unknownClient = "Unknown client_id."
        static let redirectMismatch = "The redirect_uri does not match the one bound to this authorization code."
        static let verifierMismatch = "The code_verifier does not match the code_challenge."
        static let invalidCode = "The authorization code is invalid, expired or already used."
        static let reusedCode = "refresh_token_reused"
        static let reusedMessage =
            "Your refresh token has already been used to generate a new access token. Please try signing in again."
        static let expiredCode = "refresh_token_expired"
        static let expiredMessage = "Your refresh token has expired. Please try signing in again."
        static let invalidatedCode = "refresh_token_invalidated"
        static let invalidatedMessage = "Your refresh token has been invalidated. Please try signing in again."
        static func missing(_ name: String) -> String { "Missing required parameter: \(name)." }
        static func unsupported(_ grant: String) -> String { "Unsupported grant_type: \(grant)." }
    }
}
