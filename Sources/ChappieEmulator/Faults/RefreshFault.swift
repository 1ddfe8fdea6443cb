extension ChappieEmulator {
    /// A fault for the next `refresh_token` grant at `POST /oauth/token`: a refresh token that was
    /// reused, expired or invalidated, an HTTP error, or a dropped connection. Queue with ``ChappieEmulator/enqueueRefreshFault(_:forAccountID:)``; each fault is
    /// used by one refresh grant that named a `refresh_token`, in FIFO order, whatever that token
    /// is. Authorization-code grants are not affected.
    ///
    /// Without a queued fault the store already answers for real: presenting a rotated refresh
    /// token a second time gets 401 `refresh_token_reused`, and ``ChappieEmulator/expireRefreshTokens()``
    /// and ``ChappieEmulator/revokeAllRefreshTokens()`` give `refresh_token_expired` and
    /// `refresh_token_invalidated`.
    public enum RefreshFault: Sendable, Equatable {
        /// 401 `{"error":{"code":"refresh_token_reused",…}}`, and the presented token is spent, as
        /// if another client had already rotated it.
        case reused
        /// 401 `refresh_token_expired`; the presented token becomes expired.
        case expired
        /// 401 `refresh_token_invalidated`; the presented token becomes revoked.
        case invalidated
        /// Answer with this status, raw body and extra headers (e.g. 400 `invalid_grant`, 429 with
        /// `Retry-After`, 503); the presented token stays usable.
        case httpError(status: Int, body: String, headers: [String: String])
        /// Close the connection without answering (a network error); the token stays usable.
        case dropConnection
    }
}
