import ChappieTransport
import Foundation

/// A token endpoint answer (PROTOCOL §1.3, §2.2). Every field is optional here; the code exchange
/// checks that all three tokens are present.
struct TokenResponse: Sendable, Decodable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    var idToken: String?
    var accessToken: String?
    var refreshToken: String?
    var expiresIn: TimeInterval?
    /// The granted scopes, space-separated (Sign in with ChatGPT); nil when the server omits it.
    var scope: String?

    enum CodingKeys: String, CodingKey {
        case idToken = "id_token", accessToken = "access_token", refreshToken = "refresh_token", expiresIn = "expires_in"
        case scope
    }

    var description: String { "TokenResponse([redacted])" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: ["expiresIn": expiresIn as Any, "tokens": "[redacted]"]) }
}

/// How a refresh failed: terminal failures need a new sign-in, transient ones may be retried.
enum RefreshFailure: Error, Sendable, Equatable {
    /// The refresh token is dead (`refresh_token_reused`, `_expired`, `_invalidated`, `invalid_grant`,
    /// or any 400/401/403): status and code.
    case terminal(status: Int, code: String?)
    /// Network trouble, 429 or 5xx: try later.
    case transient(String)
}

/// Calls the OAuth token and revocation endpoints (PROTOCOL §1.3, §2.1, §2.6).
struct TokenEndpoint: Sendable {
    let endpoints: ChappieEndpoints
    let transport: any HTTPTransport

    /// Exchanges a device-flow authorization code with the server-issued verifier (form-encoded,
    /// PROTOCOL §1.3). Throws ``ChappieAuthError`` (`.insecureEndpoint` before sending anything
    /// when the issuer may not carry secrets, ``ChappieEndpoints/validate()``).
    func exchange(authorizationCode: String, codeVerifier: String, now: Date) async throws -> ChappieCredential {
        if let violation = endpoints.issuerViolation { throw ChappieAuthError.insecureEndpoint(violation) }
        let form = [
            (Wire.grantType, Wire.authorizationCode), (Wire.code, authorizationCode),
            (Wire.redirectURI, endpoints.deviceRedirect.absoluteString), (Wire.clientID, OAuthClient.id),
            (Wire.codeVerifier, codeVerifier),
        ]
        let request = HTTPRequest(method: .post, url: endpoints.token,
                                  headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
                                  body: Data(FormEncoding.encode(form).utf8), idleTimeout: 30, deadline: Wire.deadline)
        let response: HTTPResponse
        do { response = try await transport.send(request, maximumBytes: 1 << 20) }
        catch let error as TransportError { throw ChappieAuthError.network(error.message(at: request.url)) }
        guard (200..<300).contains(response.head.status) else {
            let body = ServerErrorBody(data: response.body, status: response.head.status)
            throw ChappieAuthError.tokenExchangeFailed(status: response.head.status, code: body.code)
        }
        guard let tokens = try? JSONDecoder().decode(TokenResponse.self, from: response.body),
              let idToken = tokens.idToken, let accessToken = tokens.accessToken, let refreshToken = tokens.refreshToken,
              !idToken.isEmpty, !accessToken.isEmpty, !refreshToken.isEmpty
        else { throw ChappieAuthError.invalidResponse("the token response lacks id, access or refresh token") }
        return ChappieCredential(idToken: idToken, accessToken: accessToken, refreshToken: refreshToken,
                                 expiresIn: tokens.expiresIn, obtainedAt: now)
    }

    /// Spends `refreshToken` for new tokens (JSON body, as the Codex CLI sends it, PROTOCOL §2.1).
    /// Throws ``RefreshFailure``, or ``ChappieClientError/insecureEndpoint(_:)`` before sending
    /// anything when the issuer may not carry secrets.
    func refresh(refreshToken: String) async throws -> TokenResponse {
        if let violation = endpoints.issuerViolation { throw ChappieClientError.insecureEndpoint(violation) }
        let body: ChappieJSONValue = [Wire.clientID: .string(OAuthClient.id), Wire.grantType: .string(Wire.refreshToken),
                                      Wire.refreshToken: .string(refreshToken)]
        let request = HTTPRequest(method: .post, url: endpoints.token,
                                  headers: ["Content-Type": "application/json", "Accept": "application/json"],
                                  body: Data(body.jsonString.utf8), idleTimeout: 30, deadline: Wire.deadline)
        let response: HTTPResponse
        do { response = try await transport.send(request, maximumBytes: 1 << 20) }
        catch let error as TransportError { throw RefreshFailure.transient(error.message(at: request.url)) }
        let status = response.head.status
        guard (200..<300).contains(status) else {
            let error = ServerErrorBody(data: response.body, status: status)
            let code = error.code?.lowercased()
            if let code, Wire.terminalCodes.contains(code) { throw RefreshFailure.terminal(status: status, code: code) }
            if [400, 401, 403].contains(status) { throw RefreshFailure.terminal(status: status, code: code) }
            throw RefreshFailure.transient("HTTP \(status): \(error.message)")
        }
        guard let tokens = try? JSONDecoder().decode(TokenResponse.self, from: response.body), tokens.accessToken != nil else {
            throw RefreshFailure.transient("the refresh response has no access token")
        }
        return tokens
    }

    /// Spends the refresh token of `credential` on its route's token endpoint: the Codex client's
    /// JSON body for a device-code credential, the discovered endpoint with a form body, the issued
    /// client id and `resource` for a Sign in with ChatGPT one (whose new ID token, if any, is
    /// verified, with the same `sub`). Throws ``RefreshFailure`` or
    /// ``ChappieClientError/insecureEndpoint(_:)``.
    func refresh(_ credential: ChappieCredential, refreshToken: String, time: ChappieTimeSource) async throws -> TokenResponse {
        guard credential.route == .signInWithChatGPT else { return try await refresh(refreshToken: refreshToken) }
        if let violation = endpoints.issuerViolation { throw ChappieClientError.insecureEndpoint(violation) }
        guard let clientID = credential.clientID else { throw RefreshFailure.terminal(status: 400, code: "invalid_client") }
        let discovery: OpenIDDiscovery
        do { discovery = try await OpenIDDiscovery.cached(issuer: endpoints.authIssuer, transport: transport) }
        catch { throw RefreshFailure.transient("the sign-in server's discovery document is unavailable") }
        let siwc = SIWCTokenEndpoint(discovery: discovery, transport: transport, resource: SIWCTokenEndpoint.resourceIndicator)
        var tokens = try await siwc.refresh(refreshToken: refreshToken, clientID: clientID).response
        if let idToken = tokens.idToken {
            let subject = JWTClaims(token: credential.idToken)?.payload["sub"]?.stringValue
            do {
                _ = try await IDTokenVerifier(discovery: discovery, transport: transport, time: time)
                    .verify(idToken, clientID: clientID, nonce: nil, subject: subject)
            } catch ChappieAuthError.accountMismatch {
                throw RefreshFailure.terminal(status: 200, code: "account_mismatch")
            } catch {
                // An ID token that cannot be verified now is not kept; the rotated tokens are.
                tokens.idToken = nil
            }
        }
        return tokens
    }

    /// Revokes `credential` at its route's endpoint, best effort: the refresh token (or, without
    /// one, the access token) with a JSON body for a device-code credential (PROTOCOL §2.6); the
    /// refresh token with a form body at the discovered `revocation_endpoint` for a Sign in with
    /// ChatGPT one. Returns whether the server confirmed it; nothing is sent (false) when the
    /// issuer may not carry secrets.
    @discardableResult
    func revoke(_ credential: ChappieCredential, time: ChappieTimeSource) async -> Bool {
        guard credential.route == .signInWithChatGPT else {
            if let refreshToken = credential.refreshToken { return await revoke(token: refreshToken, hint: Wire.refreshToken) }
            return await revoke(token: credential.accessToken, hint: Wire.accessToken)
        }
        guard endpoints.issuerViolation == nil, let refreshToken = credential.refreshToken, let clientID = credential.clientID,
              let discovery = try? await OpenIDDiscovery.cached(issuer: endpoints.authIssuer, transport: transport)
        else { return false }
        return await SIWCTokenEndpoint(discovery: discovery, transport: transport, resource: SIWCTokenEndpoint.resourceIndicator)
            .revoke(refreshToken: refreshToken, clientID: clientID, time: time)
    }

    /// Revokes `token` best-effort (JSON body, PROTOCOL §2.6); returns whether the server answered
    /// 2xx, and sends nothing (false) when the issuer may not carry secrets.
    @discardableResult
    func revoke(token: String, hint: String) async -> Bool {
        guard endpoints.issuerViolation == nil else { return false }
        var body: [String: ChappieJSONValue] = [Wire.token: .string(token), Wire.tokenTypeHint: .string(hint)]
        if hint == Wire.refreshToken { body[Wire.clientID] = .string(OAuthClient.id) }
        let request = HTTPRequest(method: .post, url: endpoints.revoke, headers: ["Content-Type": "application/json"],
                                  body: Data(ChappieJSONValue.object(body).jsonString.utf8), idleTimeout: 10,
                                  deadline: Wire.revokeDeadline)
        guard let response = try? await transport.send(request, maximumBytes: 64 << 10) else { return false }
        return (200..<300).contains(response.head.status)
    }

    enum Wire {
        /// Seconds a whole token request (exchange or refresh) may take, however slowly it answers.
        static let deadline: TimeInterval = 60
        /// Seconds a best-effort revoke may take.
        static let revokeDeadline: TimeInterval = 15
        static let grantType = "grant_type"
        static let authorizationCode = "authorization_code"
        static let code = "code"
        static let redirectURI = "redirect_uri"
        static let clientID = "client_id"
        static let codeVerifier = "code_verifier"
        static let refreshToken = "refresh_token"
        static let accessToken = "access_token"
        static let token = "token"
        static let tokenTypeHint = "token_type_hint"
        static let terminalCodes: Set<String> = [
            "refresh_token_reused", "refresh_token_expired", "refresh_token_invalidated", "invalid_grant", "token_expired",
            "invalid_refresh_token", "invalid_client",
        ]
    }
}

/// The public OAuth client id that ChatGPT sign-in uses (PROTOCOL §0). Not a secret.
enum OAuthClient {
    static let id = "app_EMoamEEZ73f0CkXaXp7hrann"
}

/// `application/x-www-form-urlencoded` encoding (WHATWG URL §5.2).
enum FormEncoding {
    /// Encodes ordered pairs; spaces become `+`.
    static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    private static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "*-._ ")
        let restricted = allowed.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        return (text.addingPercentEncoding(withAllowedCharacters: restricted) ?? text).replacingOccurrences(of: " ", with: "+")
    }
}
