import ChappieTransport
import Foundation

/// The token and revocation calls of Sign in with ChatGPT (SIWC.md §2.5, §2.8, §2.9): form bodies
/// to the discovered endpoints, the issued client id (never `dynamic_agent_client`), and the
/// resource indicator (RFC 8707) on the code exchange and every refresh. No client secret: the
/// registration is a public client. A transport never follows a redirect, and nothing here retries
/// a token request (a retried refresh could spend a rotated token twice). Every call has an overall
/// deadline, as the device-code ones do: 60 s for an exchange or a refresh, 15 s for a revocation
/// (both attempts), however slowly the server answers.
struct SIWCTokenEndpoint: Sendable {
    let discovery: OpenIDDiscovery
    let transport: any HTTPTransport
    /// The resource indicator sent on the authorize request, the exchange and every refresh.
    let resource: String

    /// The public API's resource indicator (RFC 8707): an identifier, not the URL requests go to,
    /// so it is the same with an emulator.
    static let resourceIndicator = "https://api.openai.com/v1"

    /// The checked answer of a code exchange or refresh.
    struct Tokens: Sendable {
        var response: TokenResponse
        var scopes: [String]?
    }

    /// Exchanges an authorization code. Throws ``ChappieAuthError``: `.authorizationCodeRejected`
    /// (`invalid_grant`), `.registrationInvalid` (`invalid_client`), `.tokenExchangeFailed`,
    /// `.network`, `.invalidResponse` (the answer is not a complete token response).
    func exchange(code: String, clientID: String, codeVerifier: String, redirectURI: String) async throws -> Tokens {
        let form = [
            (Wire.grantType, Wire.authorizationCode), (Wire.clientID, clientID), (Wire.code, code),
            (Wire.codeVerifier, codeVerifier), (Wire.redirectURI, redirectURI), (Wire.resource, resource),
        ]
        let response: HTTPResponse
        do { response = try await transport.send(formRequest(discovery.tokenEndpoint, form, deadline: Self.tokenDeadline), maximumBytes: 1 << 20) }
        catch let error as TransportError { throw ChappieAuthError.network(error.message(at: discovery.tokenEndpoint)) }
        let status = response.head.status
        guard (200..<300).contains(status) else {
            let code = ServerErrorBody(data: response.body, status: status).code?.lowercased()
            switch code {
            case Wire.invalidGrant?: throw ChappieAuthError.authorizationCodeRejected
            case Wire.invalidClient?: throw ChappieAuthError.registrationInvalid
            default: throw ChappieAuthError.tokenExchangeFailed(status: status, code: code.map { Redaction.clean($0, maximumBytes: 64) })
            }
        }
        let tokens = try Self.checked(response.body, signIn: true)
        return tokens
    }

    /// Spends `refreshToken` (form body with `resource`, no `scope`, so the grant is kept).
    /// Throws ``RefreshFailure``: terminal for the codes of SIWC.md §6.4 and any 400/401/403,
    /// transient for network trouble, 429 and 5xx (the credentials are kept).
    func refresh(refreshToken: String, clientID: String) async throws -> Tokens {
        let form = [(Wire.grantType, Wire.refreshToken), (Wire.clientID, clientID), (Wire.refreshToken, refreshToken),
                    (Wire.resource, resource)]
        let response: HTTPResponse
        do { response = try await transport.send(formRequest(discovery.tokenEndpoint, form, deadline: Self.tokenDeadline), maximumBytes: 1 << 20) }
        catch let error as TransportError { throw RefreshFailure.transient(error.message(at: discovery.tokenEndpoint)) }
        let status = response.head.status
        guard (200..<300).contains(status) else {
            let code = ServerErrorBody(data: response.body, status: status).code?.lowercased()
            if let code, Wire.terminalRefreshCodes.contains(code) { throw RefreshFailure.terminal(status: status, code: code) }
            if [400, 401, 403].contains(status) { throw RefreshFailure.terminal(status: status, code: code.map { Redaction.clean($0, maximumBytes: 64) }) }
            throw RefreshFailure.transient("HTTP \(status)")
        }
        do { return try Self.checked(response.body, signIn: false) }
        catch { throw RefreshFailure.transient("the refresh response is incomplete") }
    }

    /// Revokes `refreshToken` at the discovered `revocation_endpoint` (RFC 7009 §2.1, form body).
    /// Returns true once the server answered 200 (also for a token it no longer knew); tries again
    /// once after ``revocationRetryDelay`` on network trouble or 5xx. False when not confirmed,
    /// including when the issuer publishes no revocation endpoint and when both attempts together
    /// take longer than ``revokeDeadline``.
    func revoke(refreshToken: String, clientID: String, time: ChappieTimeSource) async -> Bool {
        guard let endpoint = discovery.revocationEndpoint else { return false }
        let form = [(Wire.token, refreshToken), (Wire.tokenTypeHint, Wire.refreshToken), (Wire.clientID, clientID)]
        let request = formRequest(endpoint, form, deadline: nil)
        let confirmed = try? await HTTPDeadline.run(Self.revokeDeadline) { [transport] in
            for attempt in 1...2 {
                if attempt > 1 { try await time.sleep(Self.revocationRetryDelay) }
                guard let response = try? await transport.send(request, maximumBytes: 64 << 10) else {
                    try Task.checkCancellation()
                    continue
                }
                if response.head.status == 200 { return true }
                if response.head.status < 500 { return false }
            }
            return false
        }
        return confirmed ?? false
    }

    /// Seconds a code exchange or a refresh may take in all, as on the device-code route.
    static let tokenDeadline = TokenEndpoint.Wire.deadline
    /// Seconds a revocation may take in all, both attempts together, as on the device-code route.
    static let revokeDeadline = TokenEndpoint.Wire.revokeDeadline

    /// The pause before the second revocation attempt (OpenAI's reference code waits 300 ms).
    static let revocationRetryDelay: Duration = .milliseconds(300)

    private func formRequest(_ url: URL, _ form: [(String, String)], deadline: TimeInterval?) -> HTTPRequest {
        HTTPRequest(method: .post, url: url,
                    headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
                    body: Data(FormEncoding.encode(form).utf8), idleTimeout: 30, deadline: deadline)
    }

    /// Checks a token response as OpenAI's reference code does: `token_type` bearer (any case),
    /// `expires_in` finite and positive, `scope` a string when present, an access and a refresh
    /// token, and at sign-in an ID token. Throws ``ChappieAuthError/invalidResponse(_:)``.
    static func checked(_ body: Data, signIn: Bool) throws -> Tokens {
        guard let object = (try? ChappieJSONValue(jsonData: body))?.objectValue,
              let response = try? JSONDecoder().decode(TokenResponse.self, from: body)
        else { throw ChappieAuthError.invalidResponse("the token response is not JSON") }
        for token in [response.accessToken, response.refreshToken, response.idToken].compactMap({ $0 }) { Redaction.register(token) }
        if let type = object[Wire.tokenType] {
            guard type.stringValue?.lowercased() == Wire.bearer else { throw ChappieAuthError.invalidResponse("the token type is not bearer") }
        }
        if let expiresIn = response.expiresIn, !(expiresIn.isFinite && expiresIn > 0) {
            throw ChappieAuthError.invalidResponse("expires_in is not a positive number")
        }
        if let scope = object[Wire.scope], scope.stringValue == nil { throw ChappieAuthError.invalidResponse("scope is not a string") }
        guard let access = response.accessToken, !access.isEmpty, let refresh = response.refreshToken, !refresh.isEmpty else {
            throw ChappieAuthError.invalidResponse("the token response lacks an access or refresh token")
        }
        if signIn, (response.idToken ?? "").isEmpty { throw ChappieAuthError.invalidResponse("the token response lacks an ID token") }
        let scopes = response.scope.map { $0.split(separator: " ").map(String.init) }
        return Tokens(response: response, scopes: scopes)
    }

    enum Wire {
        static let grantType = "grant_type"
        static let authorizationCode = "authorization_code"
        static let refreshToken = "refresh_token"
        static let clientID = "client_id"
        static let code = "code"
        static let codeVerifier = "code_verifier"
        static let redirectURI = "redirect_uri"
        static let resource = "resource"
        static let token = "token"
        static let tokenTypeHint = "token_type_hint"
        static let tokenType = "token_type"
        static let bearer = "bearer"
        static let scope = "scope"
        static let invalidGrant = "invalid_grant"
        static let invalidClient = "invalid_client"
        /// Refresh errors after which only a new authorization helps (SIWC.md §6.4).
        static let terminalRefreshCodes: Set<String> = [
            "invalid_grant", "invalid_refresh_token", "token_expired", "refresh_token_expired", "refresh_token_invalidated",
            "refresh_token_reused", "invalid_client",
        ]
    }
}
