import Foundation

/// The state of the emulator's Sign in with ChatGPT issuer (SIWC.md §2–3, §5): the run's signing
/// key, registrations (`oaiapp_…` clients bound to the emulated user and workspace), consents
/// waiting on the page, authorization codes, and the token families issued from them.
///
/// A *family* is everything issued from one authorization: its access tokens and its chain of
/// rotating refresh tokens. Presenting a rotated refresh token again (`refresh_token_reused`) or
/// revoking a refresh token ends the whole family, as OAuth's refresh-token rotation advises
/// (RFC 9700 §4.14.2); a second redemption of a code ends the family it produced (RFC 6749 §4.1.2).
/// The Codex issuer's tokens live in ``TokenStore``, so neither issuer accepts the other's.
actor SignInWithChatGPTStore {
    /// The entry-point client id of a first registration; never valid at the token endpoint.
    static let dynamicClientID = "dynamic_agent_client"
    /// The resource indicator (RFC 8707) sent on authorize, exchange and refresh.
    static let apiResource = "https://api.openai.com/v1"
    /// The scope that lets an app run Responses requests on the user's plan.
    static let planUsageScope = "chatgpt.tokens.use.direct"
    /// Every scope the issuer knows, identity scopes first (SIWC.md §2.3).
    static let knownScopes = ["openid", "profile", "email", "offline_access", "resource.invoke", planUsageScope]
    /// Lifetime of an access token and of an ID token, in seconds (SIWC.md §2.8).
    static let accessTokenLifetime = 3600
    /// Lifetime of a refresh token, in seconds (30 days, renewed by every rotation).
    static let refreshTokenLifetime = 30 * 24 * 3600
    /// Lifetime of an authorization code, in seconds.
    static let codeLifetime = 600

    /// One registered app (an issued client).
    struct Registration: Sendable {
        /// The issued `oaiapp_…` id.
        var clientID: String
        /// The app's display name (the `agent_name_hint`, as edited on the consent page).
        var appName: String
        /// The user the client is bound to.
        var userID: String
        /// The workspace the client is bound to (the account id).
        var workspaceID: String
        /// Every `ext_agent_host_id` that signed in with this client.
        var hostIDs: [String]
        /// The scopes the user granted at the last consent.
        var grantedScopes: [String]
    }

    /// A validated authorization request (SIWC.md §2.3).
    struct AuthorizationRequest: Sendable {
        /// `client_id` as sent: ``dynamicClientID`` or an issued id.
        var clientID: String
        /// `redirect_uri`, byte for byte.
        var redirectURI: String
        /// Requested scopes, in request order.
        var scopes: [String]
        /// `state`, echoed on the callback.
        var state: String
        /// `nonce`, put in the ID token.
        var nonce: String
        /// `code_challenge` (S256).
        var codeChallenge: String
        /// `agent_name_hint` (first registration) or the registration's name.
        var appName: String
        /// `ext_agent_host_id`.
        var hostID: String
        /// Whether `prompt=consent` was sent.
        var forcesConsent: Bool
        /// Whether a valid `id_token_hint` was sent.
        var hasIDTokenHint: Bool

        /// Whether this request registers a new app.
        var isRegistration: Bool { clientID == SignInWithChatGPTStore.dynamicClientID }
    }

    /// The outcome of a decision: where the browser goes next.
    enum Decision: Sendable {
        /// Approved: the code, the granted scopes and the (possibly new) client id.
        case approved(code: String, scopes: [String], clientID: String)
        /// Denied.
        case denied
    }

    /// A token triple as the token endpoint returns it.
    struct TokenSet: Sendable {
        var accessToken: String
        var refreshToken: String
        var idToken: String
        var clientID: String
        var scopes: [String]
        var expiresIn: Int
        var earliestRefreshAt: Int
    }

    /// Why a grant failed: the OAuth error code and HTTP status (SIWC.md §6.1, §6.4).
    struct GrantFailure: Error, Sendable, Equatable {
        var status: Int
        var code: String
        var description: String
    }

    /// How a bearer presented to the public API stands.
    enum AccessTokenState: Sendable, Equatable {
        /// Issued, live: its client and granted scopes.
        case valid(clientID: String, scopes: [String])
        /// Issued, past its `exp`.
        case expired
        /// Revoked, or its family ended.
        case revoked
        /// Never issued by this issuer.
        case unknown
    }

    private enum RefreshState: Sendable { case active, used, revoked, expired }

    private struct CodeRecord {
        var request: AuthorizationRequest
        var clientID: String
        var scopes: [String]
        var expiresAt: Date
        var used = false
        var family: String?
    }

    private struct AccessRecord {
        var clientID: String
        var scopes: [String]
        var family: String
        var expiresAt: Date
        var revoked = false
    }

    private struct RefreshRecord {
        var clientID: String
        var scopes: [String]
        var family: String
        var expiresAt: Date
        var state: RefreshState = .active
    }

    private let user: ChappieEmulator.Account
    private let userName: String
    private var signingKey: RSASigningKey?
    private var retiredKeys = [RSASigningKey]()
    private var keyUnavailable = false
    private var registrations = [String: Registration]()
    private var pendingConsents = [String: AuthorizationRequest]()
    private var codes = [String: CodeRecord]()
    private var accessTokens = [String: AccessRecord]()
    private var refreshTokens = [String: RefreshRecord]()
    private var endedFamilies = Set<String>()
    private var idTokenDigests = [String: String]()
    /// The decision applied when the consent is automatic.
    private(set) var automaticDecision: ChappieEmulator.SignInWithChatGPTConsent = .approve
    /// Registrations made so far, deleted ones included.
    private(set) var registrationCount = 0
    /// `/v1/responses` streams served per issued client (the app's weekly cap counts them).
    private var planResponses = [String: Int]()
    /// Calls that reached the SIWC token endpoint so far.
    private(set) var tokenEndpointCalls = 0

    /// Creates an empty issuer for `user`, whose ID tokens carry `name`.
    init(user: ChappieEmulator.Account, userName: String) {
        self.user = user
        self.userName = userName
    }

    // MARK: Keys

    /// The current signing key, generated on first use; nil when the system's crypto is missing.
    func currentKey() -> RSASigningKey? {
        if signingKey == nil, !keyUnavailable {
            signingKey = RSASigningKey.generate()
            keyUnavailable = signingKey == nil
        }
        return signingKey
    }

    /// Every published key: the current one first, then retired ones (still verifying old tokens).
    func publishedKeys() -> [RSASigningKey] {
        guard let current = currentKey() else { return [] }
        return [current] + retiredKeys
    }

    /// Replaces the signing key; the old one stays published. Returns the new `kid`.
    func rotateKey() -> String? {
        guard let old = currentKey(), let fresh = RSASigningKey.generate() else { return nil }
        retiredKeys.insert(old, at: 0)
        signingKey = fresh
        return fresh.keyID
    }

    // MARK: Registrations and consent

    /// The registration with `clientID`, if any.
    func registration(_ clientID: String) -> Registration? { registrations[clientID] }

    /// Deletes a registration: its client id becomes unknown (`invalid_client`) and its tokens stop working.
    func deleteRegistration(_ clientID: String) -> Bool {
        guard registrations.removeValue(forKey: clientID) != nil else { return false }
        for (token, record) in accessTokens where record.clientID == clientID { accessTokens[token]?.revoked = true }
        for (token, record) in refreshTokens where record.clientID == clientID { refreshTokens[token]?.state = .revoked }
        return true
    }

    /// Whether `idToken` is an ID token this issuer made for `clientID`.
    func isIDToken(_ idToken: String, of clientID: String) -> Bool {
        idTokenDigests[Self.digest(idToken)] == clientID
    }

    /// Sets the decision of automatic consents.
    func setAutomaticDecision(_ decision: ChappieEmulator.SignInWithChatGPTConsent) { automaticDecision = decision }

    /// Keeps `request` until the consent page posts a decision; returns its consent id.
    func holdForConsent(_ request: AuthorizationRequest) -> String {
        let id = RandomIdentifier.prefixed("consent_", hexCount: 32)
        pendingConsents[id] = request
        return id
    }

    /// Removes and returns the request waiting under `consentID`.
    func takePendingConsent(_ consentID: String) -> AuthorizationRequest? {
        pendingConsents.removeValue(forKey: consentID)
    }

    /// Applies a decision to `request`. An approval registers the app (first registration) or
    /// updates its registration (host id, name, and the grant when consent was given), then issues
    /// a one-time code. Without `consented` (a re-authorization that showed no consent) the
    /// registration's earlier grant stays; `planUsage` false leaves out the plan-usage scope.
    func decide(
        _ request: AuthorizationRequest, approve: Bool, planUsage: Bool, appName: String?, consented: Bool
    ) -> Decision {
        guard approve else { return .denied }
        let name = appName.flatMap { $0.isEmpty ? nil : String($0.prefix(100)) } ?? request.appName
        var offered = request.scopes.filter(Self.knownScopes.contains)
        if !planUsage { offered.removeAll { $0 == Self.planUsageScope } }
        var registration: Registration
        if request.isRegistration {
            registration = Registration(
                clientID: RandomIdentifier.prefixed("oaiapp_", hexCount: 32), appName: name, userID: user.userID,
                workspaceID: user.accountID, hostIDs: [], grantedScopes: offered
            )
            registrationCount += 1
        } else {
            guard let existing = registrations[request.clientID] else { return .denied }
            registration = existing
            registration.appName = name
            if consented { registration.grantedScopes = offered }
        }
        if !registration.hostIDs.contains(request.hostID) { registration.hostIDs.append(request.hostID) }
        registrations[registration.clientID] = registration
        let granted = request.scopes.filter(registration.grantedScopes.contains)
        let code = "ac_" + Base64URL.encode(RandomIdentifier.bytes(32))
        codes[code] = CodeRecord(
            request: request, clientID: registration.clientID, scopes: granted,
            expiresAt: Date().addingTimeInterval(TimeInterval(Self.codeLifetime))
        )
        return .approved(code: code, scopes: granted, clientID: registration.clientID)
    }

    // MARK: Grants

    /// Counts one call to the token endpoint.
    func countTokenEndpointCall() { tokenEndpointCalls += 1 }

    /// Redeems an authorization code (RFC 6749 §4.1.3, RFC 7636 §4.6).
    func exchange(code: String, clientID: String, verifier: String, redirectURI: String, issuer: String)
        -> Result<TokenSet, GrantFailure>
    {
        guard var record = codes[code], record.clientID == clientID else { return .failure(Self.invalidGrant(Wire.unknownCode)) }
        if record.used {
            if let family = record.family { endFamily(family) }
            return .failure(Self.invalidGrant(Wire.usedCode))
        }
        guard Date() < record.expiresAt else { return .failure(Self.invalidGrant(Wire.expiredCode)) }
        guard record.request.redirectURI == redirectURI else { return .failure(Self.invalidGrant(Wire.redirectMismatch)) }
        guard Base64URL.encode(SHA256.digest(Array(verifier.utf8))) == record.request.codeChallenge else {
            return .failure(Self.invalidGrant(Wire.verifierMismatch))
        }
        record.used = true
        let family = RandomIdentifier.prefixed("fam_")
        record.family = family
        codes[code] = record
        guard let tokens = issue(clientID: clientID, scopes: record.scopes, family: family, nonce: record.request.nonce, issuer: issuer)
        else { return .failure(Self.unavailable) }
        return .success(tokens)
    }

    /// Rotates `refreshToken` (SIWC.md §2.8); `scopes` nil keeps the grant, else narrows it.
    func refresh(_ refreshToken: String, clientID: String, scopes: [String]?, issuer: String) -> Result<TokenSet, GrantFailure> {
        guard var record = refreshTokens[refreshToken], record.clientID == clientID, registrations[clientID] != nil else {
            return .failure(Self.invalidGrant(Wire.unknownRefreshToken))
        }
        if record.state == .active, Date() >= record.expiresAt { record.state = .expired }
        switch record.state {
        case .used:
            endFamily(record.family)
            return .failure(GrantFailure(status: 400, code: Wire.reusedCode, description: Wire.reusedDescription))
        case .revoked:
            return .failure(GrantFailure(status: 400, code: Wire.invalidatedCode, description: Wire.invalidatedDescription))
        case .expired:
            refreshTokens[refreshToken] = record
            return .failure(GrantFailure(status: 400, code: Wire.expiredRefreshCode, description: Wire.expiredRefreshDescription))
        case .active:
            break
        }
        if let scopes, !scopes.allSatisfy(record.scopes.contains) {
            return .failure(GrantFailure(status: 400, code: Wire.invalidScope, description: Wire.broaderScope))
        }
        record.state = .used
        refreshTokens[refreshToken] = record
        guard let tokens = issue(clientID: clientID, scopes: scopes ?? record.scopes, family: record.family, nonce: nil, issuer: issuer)
        else { return .failure(Self.unavailable) }
        return .success(tokens)
    }

    /// Sets the presented refresh token's state as a scripted fault says: `reused` spends it,
    /// any other code revokes it. Unknown tokens are ignored.
    func spendRefreshToken(_ token: String, reused: Bool) {
        guard refreshTokens[token] != nil else { return }
        refreshTokens[token]?.state = reused ? .used : .revoked
    }

    /// Marks the authorization code `code` used (a scripted `invalid_grant` on exchange).
    func spendCode(_ code: String) { codes[code]?.used = true }

    /// A registration and a live token family for the emulated user, as after a completed sign-in.
    func issueSignedIn(planUsage: Bool, issuer: String) -> TokenSet? {
        var scopes = Self.knownScopes
        if !planUsage { scopes.removeAll { $0 == Self.planUsageScope } }
        let registration = Registration(
            clientID: RandomIdentifier.prefixed("oaiapp_", hexCount: 32), appName: Wire.testAppName, userID: user.userID,
            workspaceID: user.accountID, hostIDs: ["urn:uuid:" + RandomIdentifier.uuid()], grantedScopes: scopes
        )
        registrations[registration.clientID] = registration
        registrationCount += 1
        return issue(
            clientID: registration.clientID, scopes: scopes, family: RandomIdentifier.prefixed("fam_"),
            nonce: Base64URL.encode(RandomIdentifier.bytes(32)), issuer: issuer
        )
    }

    // MARK: Revocation and bearer checks

    /// Revokes `token` (RFC 7009 §2.1) when it belongs to `clientID` (nil = any client): a refresh
    /// token ends its whole family, an access token only itself. Unknown tokens are ignored.
    func revoke(_ token: String, clientID: String?) {
        if let record = refreshTokens[token], clientID == nil || record.clientID == clientID {
            endFamily(record.family)
        }
        if let record = accessTokens[token], clientID == nil || record.clientID == clientID {
            accessTokens[token]?.revoked = true
        }
    }

    /// The state of an access token presented as a bearer.
    func accessTokenState(_ token: String) -> AccessTokenState {
        guard let record = accessTokens[token] else { return .unknown }
        if record.revoked || endedFamilies.contains(record.family) || registrations[record.clientID] == nil { return .revoked }
        return Date() < record.expiresAt ? .valid(clientID: record.clientID, scopes: record.scopes) : .expired
    }

    /// Makes every access token issued so far expired.
    func expireAllAccessTokens() {
        let past = Date(timeIntervalSince1970: 0)
        for key in accessTokens.keys { accessTokens[key]?.expiresAt = past }
    }

    /// Makes every usable refresh token expired.
    func expireAllRefreshTokens() {
        for (key, record) in refreshTokens where record.state == .active { refreshTokens[key]?.state = .expired }
    }

    /// Revokes every token issued so far (the user disconnected the app in ChatGPT settings);
    /// registrations stay.
    func revokeAllTokens() {
        for key in accessTokens.keys { accessTokens[key]?.revoked = true }
        for key in refreshTokens.keys { refreshTokens[key]?.state = .revoked }
    }

    /// Number of `/v1/responses` streams served to `clientID` so far.
    func planResponsesServed(clientID: String) -> Int { planResponses[clientID, default: 0] }

    /// Counts one `/v1/responses` stream served to `clientID`.
    func recordPlanResponse(clientID: String) { planResponses[clientID, default: 0] += 1 }

    /// `payload` signed with the current key (a test control), or nil without crypto.
    func sign(_ payload: JSONValue, keyID: String?) -> String? {
        currentKey().map { SignedJWT.sign(payload, with: $0, keyID: keyID) }
    }

    /// The pairwise subject of the emulated user for `clientID`: stable per user and client.
    func subject(for clientID: String) -> String {
        "user-" + Base64URL.encode(SHA256.digest(Array((user.userID + "|" + clientID).utf8)).prefix(18))
    }

    // MARK: Private

    private func endFamily(_ family: String) {
        endedFamilies.insert(family)
        for (token, record) in refreshTokens where record.family == family && record.state == .active {
            refreshTokens[token]?.state = .revoked
        }
    }

    private func issue(clientID: String, scopes: [String], family: String, nonce: String?, issuer: String) -> TokenSet? {
        guard let key = currentKey() else { return nil }
        let now = Int(Date().timeIntervalSince1970)
        let subject = subject(for: clientID)
        let scope = scopes.joined(separator: " ")
        let access: JSONValue = [
            Wire.subject: .string(subject),
            Wire.audience: .string(Self.apiResource),
            Wire.clientID: .string(clientID),
            Wire.scope: .string(scope),
            Wire.authNamespace: [
                Wire.perUserSalt: .string(Base64URL.encode(SHA256.digest(Array((user.userID + "salt").utf8)).prefix(16))),
                Wire.encryptedMetadata: .string(Base64URL.encode(RandomIdentifier.bytes(48))),
            ],
            Wire.issuer: .string(issuer),
            Wire.issuedAt: .int(now),
            Wire.notBefore: .int(now),
            Wire.expiry: .int(now + Self.accessTokenLifetime),
            Wire.tokenID: .string(RandomIdentifier.uuid()),
        ]
        var identity: [(String, JSONValue)] = [
            (Wire.issuer, .string(issuer)),
            (Wire.audience, [.string(clientID)]),
            (Wire.subject, .string(subject)),
            (Wire.issuedAt, .int(now)),
            (Wire.expiry, .int(now + Self.accessTokenLifetime)),
            (Wire.authTime, .int(now)),
        ]
        if let nonce { identity.append((Wire.nonce, .string(nonce))) }
        if scopes.contains(Wire.emailScope) {
            identity += [(Wire.email, .string(user.email)), (Wire.emailVerified, true)]
        }
        if scopes.contains(Wire.profileScope) { identity.append((Wire.name, .string(userName))) }
        let accessToken = SignedJWT.sign(access, with: key)
        let idToken = SignedJWT.sign(.object(identity), with: key)
        let refreshToken = "rt_" + Base64URL.encode(RandomIdentifier.bytes(48))
        let lifetime = TimeInterval(Self.accessTokenLifetime)
        accessTokens[accessToken] = AccessRecord(
            clientID: clientID, scopes: scopes, family: family, expiresAt: Date().addingTimeInterval(lifetime)
        )
        refreshTokens[refreshToken] = RefreshRecord(
            clientID: clientID, scopes: scopes, family: family,
            expiresAt: Date().addingTimeInterval(TimeInterval(Self.refreshTokenLifetime))
        )
        idTokenDigests[Self.digest(idToken)] = clientID
        return TokenSet(
            accessToken: accessToken, refreshToken: refreshToken, idToken: idToken, clientID: clientID, scopes: scopes,
            expiresIn: Self.accessTokenLifetime, earliestRefreshAt: now
        )
    }

    private static func digest(_ token: String) -> String { Base64URL.encode(SHA256.digest(Array(token.utf8))) }

    private static func invalidGrant(_ description: String) -> GrantFailure {
        GrantFailure(status: 400, code: Wire.invalidGrant, description: description)
    }

    private static let unavailable = GrantFailure(status: 503, code: Wire.temporarilyUnavailable, description: Wire.noCrypto)

    private enum Wire {
        static let subject = "sub"
        static let audience = "aud"
        static let clientID = "client_id"
        static let scope = "scope"
        static let authNamespace = "https://api.openai.com/auth"
        static let perUserSalt = "per_user_salt"
        static let encryptedMetadata = "encrypted_auth_metadata"
        static let issuer = "iss"
        static let issuedAt = "iat"
        static let notBefore = "nbf"
        static let expiry = "exp"
        static let authTime = "auth_time"
        static let tokenID = "jti"
        static let nonce = "nonce"
        static let email = "email"
        static let emailVerified = "email_verified"
        static let name = "name"
        static let emailScope = "email"
        static let profileScope = "profile"
        static let testAppName = "Chappie emulator test app"
        static let invalidGrant = "invalid_grant"
        static let invalidScope = "invalid_scope"
        static let temporarilyUnavailable = "temporarily_unavailable"
        static let reusedCode = "refresh_token_reused"
        static let invalidatedCode = "refresh_token_invalidated"
        static let expiredRefreshCode = "refresh_token_expired"
        static let unknownCode = "The authorization code is invalid or was issued to another client."
        static let usedCode = "The authorization code was already used."
        static let expiredCode = "The authorization code has expired."
        static let redirectMismatch = "The redirect_uri does not match the authorization request."
        static let verifierMismatch = "The code_verifier does not match the code_challenge."
        static let unknownRefreshToken = "The refresh token is invalid or was issued to another client."
        static let reusedDescription = "The refresh token was already used; the session has ended."
        static let invalidatedDescription = "The refresh token has been revoked."
        static let expiredRefreshDescription = "The refresh token has expired."
        static let broaderScope = "The requested scope exceeds the original grant."
        static let noCrypto = "The issuer cannot sign tokens: the system's crypto library is unavailable."
    }
}
