import Foundation

extension ChappieEmulator {
    // MARK: Sign in with ChatGPT: addresses

    /// The Sign in with ChatGPT issuer, `http://127.0.0.1:<port>` (the same server as
    /// ``baseURL``): discovery at `/.well-known/openid-configuration`, keys at
    /// `/.well-known/jwks.json`, `/api/accounts/authorize`, `/api/accounts/oauth/token`,
    /// `/api/accounts/oauth/revoke`.
    public var signInWithChatGPTIssuer: URL { baseURL }

    /// `<baseURL>/v1`: the public Responses API base for Sign in with ChatGPT tokens
    /// (`/v1/models`, `/v1/responses`).
    public var publicAPIBaseURL: URL { baseURL.appendingPathComponent("v1") }

    // MARK: Sign in with ChatGPT: tokens

    /// A Sign in with ChatGPT token set, as the issuer's token endpoint returns it. Prints
    /// without its tokens.
    public struct SignInWithChatGPTTokens: Sendable, Equatable {
        /// The RS256-signed access token, accepted as bearer by `/v1`.
        public var accessToken: String
        /// The one-use refresh token (rotated on every refresh).
        public var refreshToken: String
        /// The RS256-signed ID token (`aud` is `[clientID]`).
        public var idToken: String
        /// The issued `oaiapp_…` client id of the registration.
        public var clientID: String
        /// The granted scopes, space-separated.
        public var scope: String
        /// Access-token lifetime in seconds (3600).
        public var expiresIn: Int
    }

    /// Registers an app for the configured user and workspace and issues a live token set, as if
    /// the user had just completed a Sign in with ChatGPT sign-in (with the full scope set), so a
    /// test can use `/v1` or refresh without running the browser flow.
    ///
    /// - Parameter planUsage: Whether the grant includes `chatgpt.tokens.use.direct` (false = the
    ///   user declined plan usage: `/v1/responses` refuses the token).
    /// - Returns: The tokens and the new registration's client id. Without the system's crypto
    ///   (`libcrypto.so.3` on Linux) the strings are empty and nothing accepts them.
    public func issueSignInWithChatGPTTokens(planUsage: Bool = true) async -> SignInWithChatGPTTokens {
        let set = await services.signInWithChatGPT.issueSignedIn(planUsage: planUsage, issuer: services.issuer)
        return SignInWithChatGPTTokens(
            accessToken: set?.accessToken ?? "", refreshToken: set?.refreshToken ?? "", idToken: set?.idToken ?? "",
            clientID: set?.clientID ?? "", scope: set?.scopes.joined(separator: " ") ?? "",
            expiresIn: set?.expiresIn ?? SignInWithChatGPTStore.accessTokenLifetime
        )
    }

    /// One registered app, as ``signInWithChatGPTRegistration(clientID:)`` reports it.
    public struct SignInWithChatGPTRegistration: Sendable, Equatable {
        /// The issued `oaiapp_…` client id.
        public var clientID: String
        /// The app name (the `agent_name_hint`, as edited on the consent page).
        public var appName: String
        /// Every `ext_agent_host_id` that signed in with this client, in order.
        public var hostIDs: [String]
        /// The scopes granted at the last consent.
        public var grantedScopes: [String]
    }

    /// The registration with `clientID`, or nil when none exists (never registered, or deleted).
    public func signInWithChatGPTRegistration(clientID: String) async -> SignInWithChatGPTRegistration? {
        await services.signInWithChatGPT.registration(clientID).map {
            SignInWithChatGPTRegistration(clientID: $0.clientID, appName: $0.appName, hostIDs: $0.hostIDs, grantedScopes: $0.grantedScopes)
        }
    }

    /// Number of registrations made so far (first sign-ins with `dynamic_agent_client`, and
    /// ``issueSignInWithChatGPTTokens(planUsage:)`` calls), deleted ones included.
    public var signInWithChatGPTRegistrationCount: Int {
        get async { await services.signInWithChatGPT.registrationCount }
    }

    /// Deletes a registration, as if the user removed the app: its client id becomes unknown to
    /// the token endpoint (401 `invalid_client`) and the authorize endpoint, and its tokens stop
    /// working. - Returns: false when no such registration exists.
    @discardableResult public func deleteSignInWithChatGPTRegistration(clientID: String) async -> Bool {
        await services.signInWithChatGPT.deleteRegistration(clientID)
    }

    /// Makes every Sign in with ChatGPT access token issued so far expired (`/v1` answers 401
    /// `token_expired` until the client refreshes).
    public func expireSignInWithChatGPTAccessTokens() async {
        await services.signInWithChatGPT.expireAllAccessTokens()
    }

    /// Makes every usable Sign in with ChatGPT refresh token expired (refresh answers 400
    /// `refresh_token_expired`).
    public func expireSignInWithChatGPTRefreshTokens() async {
        await services.signInWithChatGPT.expireAllRefreshTokens()
    }

    /// Revokes every Sign in with ChatGPT token issued so far, as when the user disconnects the
    /// app in ChatGPT settings; registrations stay.
    public func revokeAllSignInWithChatGPTTokens() async {
        await services.signInWithChatGPT.revokeAllTokens()
    }

    /// Number of requests that reached `/api/accounts/oauth/token` so far (any grant, any outcome).
    public var signInWithChatGPTTokenEndpointCalls: Int {
        get async { await services.signInWithChatGPT.tokenEndpointCalls }
    }

    // MARK: Sign in with ChatGPT: consent and faults

    /// Sets the decision taken when the emulator decides authorizations by itself (when
    /// ``Configuration/autoApproveAfterPolls`` is not nil): approve (the default), approve without
    /// plan usage, or deny. A re-authorization that needs no consent (an issued client id
    /// without `prompt=consent`) keeps the registration's earlier grant whatever the decision.
    public func setSignInWithChatGPTConsent(_ decision: SignInWithChatGPTConsent) async {
        await services.signInWithChatGPT.setAutomaticDecision(decision)
    }

    /// Queues `fault` for the next request to `/api/accounts/oauth/token` of `grant` (nil = any
    /// grant), FIFO. A request takes the oldest fault for its grant type before an untargeted one.
    public func enqueueSignInWithChatGPTTokenFault(_ fault: SignInWithChatGPTTokenFault, grant: SignInWithChatGPTGrant? = nil) async {
        let key: String? = grant.map { $0 == .authorizationCode ? "authorization_code" : "refresh_token" }
        await services.signInWithChatGPTTokenFaults.enqueue(fault, accountID: key)
    }

    // MARK: Public API (/v1)

    /// Queues `fault` for the next `POST /v1/responses` that passes the bearer check and the
    /// request rules (FIFO), before any queued ``ScriptedReply``.
    public func enqueuePlanUsageFault(_ fault: PlanUsageFault) async {
        await services.planUsageFaults.enqueue(fault)
    }

    /// Number of `/v1/responses` streams served to the registration `clientID` so far (what the
    /// app's weekly cap, ``SignInWithChatGPTOptions/weeklyResponseCap``, counts).
    public func planUsageResponsesServed(clientID: String) async -> Int {
        await services.signInWithChatGPT.planResponsesServed(clientID: clientID)
    }

    /// Makes the discovery document and/or the JWKS answer 503 `temporarily_unavailable` until
    /// called again with false (an identity-service outage).
    public func setSignInWithChatGPTOutage(discovery: Bool, jwks: Bool) {
        services.signInWithChatGPTOutage.withLock { $0 = (discovery, jwks) }
    }

    /// Generates a new signing key: tokens issued from now on carry its `kid`; the JWKS lists it
    /// first and keeps the old key. - Returns: the new `kid`, or nil without the system's crypto.
    @discardableResult public func rotateSignInWithChatGPTSigningKey() async -> String? {
        await services.signInWithChatGPT.rotateKey()
    }

    /// Signs any JWT payload with the issuer's current key, for tests of a verifier (a wrong
    /// `iss`, `aud` or `nonce`, an expired token, all with a valid signature). Such tokens are
    /// not recorded, so no endpoint accepts them as issued.
    ///
    /// - Parameters:
    ///   - payload: The payload, a JSON object as text.
    ///   - keyID: The header's `kid`; nil uses the current key's (pass another for an unknown `kid`).
    /// - Returns: The compact JWS, or nil when `payload` is not a JSON object or crypto is missing.
    public func signSignInWithChatGPTJWT(payload: String, keyID: String? = nil) async -> String? {
        guard let value = JSONValue.parse(Data(payload.utf8)), value.objectMembers != nil else { return nil }
        return await services.signInWithChatGPT.sign(value, keyID: keyID)
    }
}

extension ChappieEmulator.SignInWithChatGPTTokens: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `SignInWithChatGPTTokens(clientID: …, scope: …, expiresIn: …, tokens: <redacted>)`.
    public var description: String {
        "SignInWithChatGPTTokens(clientID: \(clientID), scope: \(scope), expiresIn: \(expiresIn), tokens: <redacted>)"
    }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// A mirror with the token fields redacted.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "accessToken": "<redacted>", "refreshToken": "<redacted>", "idToken": "<redacted>", "clientID": clientID,
            "scope": scope, "expiresIn": expiresIn,
        ])
    }
}
