import Foundation

/// Authorization codes, access tokens and refresh tokens issued by the emulator, with the rules of
/// the real token endpoint (PROTOCOL §1.3, §2): one-time codes bound to a PKCE verifier, rotating
/// refresh tokens whose reuse is an error, revocation, and access tokens valid until their `exp`.
actor TokenStore {
    /// The public OAuth client id of the Codex CLI (PROTOCOL §0).
    static let clientID = "app_EMoamEEZ73f0CkXaXp7hrann"

    /// A freshly issued token triple.
    struct TokenSet: Sendable {
        /// Unsigned JWT with the identity claims.
        var idToken: String
        /// Unsigned JWT accepted as `Authorization: Bearer` by the backend.
        var accessToken: String
        /// Opaque `rt_…` refresh token (one use).
        var refreshToken: String
        /// Access-token lifetime in seconds.
        var expiresIn: Int
    }

    /// Why a grant failed; the endpoint turns each into its wire body.
    enum GrantFailure: Error, Sendable, Equatable {
        /// Unknown, already used or expired authorization code.
        case invalidCode
        /// The `code_verifier` does not hash to the code's challenge.
        case verifierMismatch
        /// The refresh token was already rotated.
        case refreshTokenReused
        /// The refresh token was revoked or never issued.
        case refreshTokenInvalidated
        /// The refresh token is past its lifetime.
        case refreshTokenExpired
    }

    /// The state of a refresh token.
    enum RefreshState: Sendable {
        /// Usable once.
        case active
        /// Already rotated; presenting it again is `refresh_token_reused`.
        case used
        /// Revoked; `refresh_token_invalidated`.
        case revoked
        /// Past its lifetime; `refresh_token_expired`.
        case expired
    }

    private struct AccessRecord {
        var expiresAt: Date
        var revoked: Bool
        var account: ChappieEmulator.Account
    }

    private struct CodeRecord {
        var challenge: String
        var used: Bool
    }

    private let account: ChappieEmulator.Account
    private let accessTokenLifetime: Int
    private var accessTokens = [String: AccessRecord]()
    private var refreshTokens = [String: RefreshState]()
    private var refreshAccounts = [String: ChappieEmulator.Account]()
    private var codes = [String: CodeRecord]()
    /// Refresh grants answered with new tokens.
    private(set) var refreshGrantsServed = 0
    /// Every call that reached `/oauth/token`, successful or not.
    private(set) var tokenEndpointCalls = 0

    /// Creates an empty store.
    init(account: ChappieEmulator.Account, accessTokenLifetime: Int) {
        self.account = account
        self.accessTokenLifetime = accessTokenLifetime
    }

    /// Counts one call to `/oauth/token`.
    func countTokenEndpointCall() { tokenEndpointCalls += 1 }

    /// Makes `grant`'s authorization code redeemable once (idempotent for repeated polls).
    func register(_ grant: DeviceAuthorizationStore.PKCEGrant) {
        if codes[grant.authorizationCode] == nil {
            codes[grant.authorizationCode] = CodeRecord(challenge: grant.codeChallenge, used: false)
        }
    }

    /// Redeems an authorization code with its PKCE verifier (RFC 7636 §4.6).
    func exchange(code: String, verifier: String, issuer: String) -> Result<TokenSet, GrantFailure> {
        guard var record = codes[code], !record.used else { return .failure(.invalidCode) }
        guard Base64URL.encode(SHA256.digest(Array(verifier.utf8))) == record.challenge else {
            return .failure(.verifierMismatch)
        }
        record.used = true
        codes[code] = record
        return .success(issue(issuer: issuer))
    }

    /// Rotates `refreshToken`: the old one becomes used, a new triple is issued.
    func refresh(_ refreshToken: String, issuer: String) -> Result<TokenSet, GrantFailure> {
        switch refreshTokens[refreshToken] {
        case .none, .revoked?: return .failure(.refreshTokenInvalidated)
        case .used?: return .failure(.refreshTokenReused)
        case .expired?: return .failure(.refreshTokenExpired)
        case .active?:
            refreshTokens[refreshToken] = .used
            refreshGrantsServed += 1
            return .success(issue(issuer: issuer, account: refreshAccounts[refreshToken]))
        }
    }

    /// Sets a known refresh token's state (a scripted fault); unknown tokens are ignored.
    func markRefreshToken(_ token: String, as state: RefreshState) {
        if refreshTokens[token] != nil { refreshTokens[token] = state }
    }

    /// Issues a new token triple directly (for tests and for grants), for `account` (nil = the
    /// configured account).
    func issue(issuer: String, accessTokenLifetime lifetime: Int? = nil, account: ChappieEmulator.Account? = nil) -> TokenSet {
        let account = account ?? self.account
        let now = Date()
        let lifetime = lifetime ?? accessTokenLifetime
        let access = JWTFactory.accessToken(account: account, issuedAt: now, lifetime: lifetime, issuer: issuer)
        let refresh = "rt_" + Base64URL.encode(RandomIdentifier.bytes(36))
        accessTokens[access] = AccessRecord(expiresAt: now.addingTimeInterval(TimeInterval(lifetime)), revoked: false, account: account)
        refreshTokens[refresh] = .active
        refreshAccounts[refresh] = account
        return TokenSet(
            idToken: JWTFactory.idToken(account: account, issuedAt: now, lifetime: 3600, issuer: issuer),
            accessToken: access,
            refreshToken: refresh,
            expiresIn: lifetime
        )
    }

    /// Revokes an access or refresh token (RFC 7009: unknown tokens are ignored). Revoking a refresh
    /// token also revokes nothing else; the access token lives until its `exp`, as on the real service.
    func revoke(_ token: String) {
        if refreshTokens[token] != nil { refreshTokens[token] = .revoked }
        if accessTokens[token] != nil { accessTokens[token]?.revoked = true }
    }

    /// How an access token presented as a bearer stands.
    enum AccessTokenState: Sendable, Equatable {
        /// Issued, not expired, not revoked.
        case valid
        /// Issued but past its lifetime (or expired by a test).
        case expired
        /// Issued and revoked.
        case revoked
        /// Never issued by this emulator.
        case unknown
    }

    /// The state of access token `token`.
    func accessTokenState(_ token: String) -> AccessTokenState {
        guard let record = accessTokens[token] else { return .unknown }
        if record.revoked { return .revoked }
        return Date() < record.expiresAt ? .valid : .expired
    }

    /// The `chatgpt_account_id` an issued access token belongs to, or nil for an unknown token.
    func accountID(ofAccessToken token: String) -> String? { accessTokens[token]?.account.accountID }

    /// The `chatgpt_account_id` an issued refresh token belongs to, or nil for an unknown token.
    func accountID(ofRefreshToken token: String) -> String? { refreshAccounts[token]?.accountID }

    /// Makes every access token issued so far expired (their JWT `exp` is unchanged).
    func expireAllAccessTokens() {
        let past = Date(timeIntervalSince1970: 0)
        for key in accessTokens.keys { accessTokens[key]?.expiresAt = past }
    }

    /// Revokes every access token issued so far.
    func revokeAllAccessTokens() {
        for key in accessTokens.keys { accessTokens[key]?.revoked = true }
    }

    /// Expires every refresh token that is still usable.
    func expireAllRefreshTokens() {
        for (key, state) in refreshTokens where state == .active { refreshTokens[key] = .expired }
    }

    /// Revokes every refresh token issued so far (a server-side sign-out).
    func revokeAllRefreshTokens() {
        for key in refreshTokens.keys { refreshTokens[key] = .revoked }
    }
}
