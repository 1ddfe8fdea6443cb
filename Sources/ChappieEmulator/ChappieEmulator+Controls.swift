import Foundation

extension ChappieEmulator {
    // MARK: Device flow

    /// Approves the pending device code `userCode` (case-insensitive), as if the user clicked
    /// Approve on `/codex/device`; the next poll gets the authorization code.
    /// - Returns: false when the code is unknown, expired, or no longer pending.
    @discardableResult public func approve(userCode: String) async -> Bool {
        await services.deviceAuthorizations.approve(userCode: userCode)
    }

    /// Denies the pending device code `userCode`; the next poll gets 401 `authorization_declined`.
    /// - Returns: false when the code is unknown, expired, or no longer pending.
    @discardableResult public func deny(userCode: String) async -> Bool {
        await services.deviceAuthorizations.deny(userCode: userCode)
    }

    /// Expires the device code `userCode` now; the next poll gets 403 `deviceauth_expired`.
    /// - Returns: false when the code is unknown.
    @discardableResult public func expire(userCode: String) async -> Bool {
        await services.deviceAuthorizations.expire(userCode: userCode)
    }

    /// Waits for the next device code issued by `/api/accounts/deviceauth/usercode` and returns its
    /// user code. Codes are handed out in issue order, each once; a code issued before the call is
    /// returned at once. Returns nil if the emulator shuts down first.
    public func nextDeviceCode() async -> String? {
        await services.deviceAuthorizations.nextUserCode()
    }

    // MARK: Tokens

    /// A token triple as `/oauth/token` would return it.
    public struct IssuedTokens: Sendable, Equatable {
        /// Unsigned JWT with the identity claims.
        public var idToken: String
        /// Unsigned JWT accepted as bearer by the backend endpoints.
        public var accessToken: String
        /// One-use refresh token.
        public var refreshToken: String
        /// Access-token lifetime in seconds.
        public var expiresIn: Int
    }

    /// Issues a fresh token triple for the configured ``Configuration/account`` without the
    /// device flow, as if a sign-in had just completed.
    /// - Parameter accessTokenLifetime: Seconds until the access token expires; nil uses the
    ///   configuration's lifetime. Pass 0 or a negative value for an already expired token.
    /// - Returns: The id, access and refresh tokens, all accepted by the emulator.
    public func issueTokens(accessTokenLifetime: Int? = nil) async -> IssuedTokens {
        await issueTokens(accessTokenLifetime: accessTokenLifetime, account: configuration.account)
    }

    /// Issues a fresh token triple for `account` (any account, not only the configured one), as
    /// if that account had just signed in. Refreshing the tokens keeps the account, and replies
    /// and faults queued for its ``Account/accountID`` apply to requests made with them.
    /// - Parameters:
    ///   - accessTokenLifetime: Seconds until the access token expires; nil uses the
    ///     configuration's lifetime. Pass 0 or a negative value for an already expired token.
    ///   - account: The account the tokens describe (their JWT claims).
    /// - Returns: The id, access and refresh tokens, all accepted by the emulator.
    public func issueTokens(accessTokenLifetime: Int? = nil, account: Account) async -> IssuedTokens {
        let set = await services.tokens.issue(issuer: services.issuer, accessTokenLifetime: accessTokenLifetime, account: account)
        return IssuedTokens(idToken: set.idToken, accessToken: set.accessToken, refreshToken: set.refreshToken, expiresIn: set.expiresIn)
    }

    /// Makes every access token issued so far expired, so the backend answers 401 with
    /// `x-error-json` code `token_expired` until the client refreshes.
    public func expireAccessTokens() async {
        await services.tokens.expireAllAccessTokens()
    }

    /// Revokes every access token issued so far (401 `{"detail":"Unauthorized"}` from the backend).
    public func revokeAllAccessTokens() async {
        await services.tokens.revokeAllAccessTokens()
    }

    /// Expires every refresh token issued so far; refresh grants then get 401 `refresh_token_expired`.
    public func expireRefreshTokens() async {
        await services.tokens.expireAllRefreshTokens()
    }

    /// Revokes every refresh token issued so far; refresh grants then get 401 `refresh_token_invalidated`.
    public func revokeAllRefreshTokens() async {
        await services.tokens.revokeAllRefreshTokens()
    }

    /// Queues `fault` for the next `refresh_token` grant (FIFO), e.g. ``RefreshFault/reused`` to
    /// make the next refresh answer 401 `refresh_token_reused` whatever token it presents.
    /// - Parameters:
    ///   - fault: what the grant answers.
    ///   - accountID: Only a grant presenting a refresh token of this account (its
    ///     `chatgpt_account_id`) takes the fault; nil = any grant. A grant takes a fault for its
    ///     account before an untargeted one.
    public func enqueueRefreshFault(_ fault: RefreshFault, forAccountID accountID: String? = nil) async {
        await services.refreshFaults.enqueue(fault, accountID: accountID)
    }

    /// TCP connections accepted so far, all routes together: a client that reuses keep-alive
    /// connections opens fewer connections than it sends requests.
    public var connectionsAccepted: Int { listener.connectionsAccepted }

    /// Number of successful `refresh_token` grants served so far.
    public var refreshGrantsServed: Int {
        get async { await services.tokens.refreshGrantsServed }
    }

    /// Number of requests that reached `/oauth/token` so far (any grant, successful or not).
    public var tokenEndpointCalls: Int {
        get async { await services.tokens.tokenEndpointCalls }
    }

    // MARK: Model script

    /// Queues `reply` for the next `POST /backend-api/codex/responses`, or `response.create`
    /// frame with `generate` not false on a Responses WebSocket, that passes validation. Replies
    /// are used in FIFO order; with none queued ``Configuration/standingReply`` answers, else the
    /// scripted model.
    public func enqueue(_ reply: ScriptedReply) async {
        await services.replies.enqueue(reply)
    }

    /// Queues `reply` like ``enqueue(_:)``, but only for a call made with an access token of the
    /// account `accountID` (its `chatgpt_account_id`, see
    /// ``issueTokens(accessTokenLifetime:account:)``). A call takes the oldest reply for its
    /// account before the oldest untargeted one; calls of other accounts leave it queued.
    public func enqueue(_ reply: ScriptedReply, forAccountID accountID: String) async {
        await services.replies.enqueue(reply, accountID: accountID)
    }

    /// Changes the key the backend seals opaque items with (the `encrypted_content` of reasoning
    /// and compaction items), as when the real service rotates it: every such value minted before
    /// can no longer be read, and a request (`/responses` over HTTP or WebSocket,
    /// `/responses/compact`, `/v1/responses`) that carries one is refused with HTTP 400
    /// `invalid_encrypted_content` (an `error` event over the WebSocket). Values minted afterwards
    /// are read as usual. Before the first rotation every value is accepted.
    public func rotateContentKey() {
        services.sealer.rotate()
    }

    /// Number of queued replies not yet used.
    public var queuedReplyCount: Int {
        get async { await services.replies.count }
    }

    /// Queues `fault` for the next Responses WebSocket handshake (FIFO): refuse it (e.g. 426),
    /// or accept and close at once (e.g. 1008), drop, or stop reading (a half-open peer).
    /// - Parameters:
    ///   - fault: what the handshake gets.
    ///   - accountID: Only a handshake with an access token of this account takes the
    ///     fault; nil = any handshake. A handshake takes a fault for its account first.
    public func enqueueWebSocketFault(_ fault: WebSocketFault, forAccountID accountID: String? = nil) async {
        await services.webSocketFaults.enqueue(fault, accountID: accountID)
    }

    // MARK: Connection closes

    /// Waits for the next stream the client closed and returns it. Records
    /// are handed out in order, each once; one recorded before the call is returned at once.
    /// Returns nil once the emulator has shut down. Bound the wait in a test, e.g. with a task
    /// group racing a deadline.
    public func nextClosedStream() async -> ClosedStream? {
        await services.closedStreams.next()
    }

    /// Number of client-closed streams recorded so far.
    public var closedStreamCount: Int {
        get async { await services.closedStreams.count }
    }

    // MARK: Usage

    /// Forces the primary (5-hour) window's used percentage reported by `/wham/usage` and the
    /// response headers; nil returns to counting responses.
    public func setPrimaryUsedPercent(_ percent: Int?) async {
        await services.usage.setPrimaryUsedPercent(percent)
    }

    // MARK: Request log

    /// The requests received so far, in arrival order (including rejected ones that parsed as HTTP,
    /// but not those refused for a foreign `Host` or `Origin`): the last 1,000, with at most 1 MiB
    /// of each body (``RecordedRequest/bodyByteCount`` has the full size) and 64 MiB in all.
    /// Each text message received on a Responses WebSocket is recorded too, with method `WS`, the
    /// socket's path, no headers, and the message as body.
    public func recordedRequests() async -> [RecordedRequest] {
        await services.recorder.all()
    }

    /// Waits for the next request on `path` (e.g. `/backend-api/codex/responses`) and returns it,
    /// so a test can act the moment a request arrives instead of polling. Requests are handed out
    /// in arrival order, each once per path; one received before the call (and still kept, see
    /// ``recordedRequests()``) is returned at once.
    /// The wait has no deadline of its own: bound it in a test (e.g. a `.timeLimit` trait).
    public func nextRequest(path: String) async -> RecordedRequest {
        await services.recorder.next(path: path)
    }
}
