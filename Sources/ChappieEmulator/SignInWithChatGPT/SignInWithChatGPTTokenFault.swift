extension ChappieEmulator {
    /// A fault for the next request to the Sign in with ChatGPT token endpoint,
    /// `POST /api/accounts/oauth/token` (the errors apps must handle on a code exchange or a
    /// refresh). Queue it with ``ChappieEmulator/enqueueSignInWithChatGPTTokenFault(_:grant:)``;
    /// each fault answers one request of its grant type, in FIFO order, after the request's
    /// client id was accepted.
    ///
    /// Without a queued fault the endpoint already answers for real: a used or unknown code or
    /// refresh token is `invalid_grant`, a rotated refresh token presented again is
    /// `refresh_token_reused` (and ends the session), a deleted registration is `invalid_client`.
    public enum SignInWithChatGPTTokenFault: Sendable, Equatable {
        /// An OAuth error body `{"error":"<code>","error_description":"…"}` (RFC 6749 §5.2) with
        /// `status`. For a status below 500 the presented code or refresh token becomes unusable,
        /// as the code says: `refresh_token_reused` spends the token, any other code revokes it.
        case oauthError(status: Int, code: String)
        /// The OpenAI-style body `{"error":{"code":"<code>","message":…,"type":…,"param":null}}`
        /// with `status`; the presented code or token becomes unusable as for ``oauthError(status:code:)``.
        case openAIError(status: Int, code: String)
        /// Exactly this status, raw body and headers (e.g. a 502 HTML page, a 429 with
        /// `Retry-After`); the presented code or token stays usable.
        case httpError(status: Int, body: String, headers: [String: String])
        /// Close the connection without answering (a network error); the code or token stays usable.
        case dropConnection

        /// 400 `invalid_grant`: on a code exchange, start a fresh authorization with the issued client id.
        public static let invalidGrant = SignInWithChatGPTTokenFault.oauthError(status: 400, code: "invalid_grant")
        /// 401 `invalid_client`: the client configuration (or registration) is not accepted.
        public static let invalidClient = SignInWithChatGPTTokenFault.oauthError(status: 401, code: "invalid_client")
        /// 400 `refresh_token_reused`.
        public static let refreshTokenReused = SignInWithChatGPTTokenFault.oauthError(status: 400, code: "refresh_token_reused")
        /// 400 `refresh_token_expired`.
        public static let refreshTokenExpired = SignInWithChatGPTTokenFault.oauthError(status: 400, code: "refresh_token_expired")
        /// 400 `refresh_token_invalidated`.
        public static let refreshTokenInvalidated = SignInWithChatGPTTokenFault.oauthError(
            status: 400, code: "refresh_token_invalidated"
        )
        /// 503 `temporarily_unavailable`; the token is not rotated.
        public static let temporarilyUnavailable = SignInWithChatGPTTokenFault.oauthError(status: 503, code: "temporarily_unavailable")
    }

    /// The grant a ``SignInWithChatGPTTokenFault`` applies to.
    public enum SignInWithChatGPTGrant: Sendable, Equatable {
        /// `grant_type=authorization_code` (the code exchange).
        case authorizationCode
        /// `grant_type=refresh_token`.
        case refreshToken
    }

    /// The consent decision the emulator takes when it decides SIWC sign-ins by itself (see
    /// ``ChappieEmulator/setSignInWithChatGPTConsent(_:)``).
    public enum SignInWithChatGPTConsent: Sendable, Equatable {
        /// Approve with every requested scope, plan usage included.
        case approve
        /// Approve, but decline plan usage: the grant lacks `chatgpt.tokens.use.direct`.
        case approveWithoutPlanUsage
        /// Deny: the callback gets `error=access_denied`.
        case deny
    }
}
