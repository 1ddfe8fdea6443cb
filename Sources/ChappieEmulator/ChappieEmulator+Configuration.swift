import Foundation

extension ChappieEmulator {
    /// Options for a new emulator. Every parameter has a default, so `.init()` is a working setup.
    public struct Configuration: Sendable {
        /// Loopback port to bind; 0 picks a free one (use 0 in parallel tests).
        public var port: Int
        /// Seconds a client should wait between device-code polls; sent as the JSON *string*
        /// `"interval"`.
        public var pollingIntervalSeconds: Int
        /// Number of pending polls after which a device code is approved automatically; nil = never
        /// (approve with ``ChappieEmulator/approve(userCode:)`` or the `/codex/device` page).
        /// When not nil, Sign in with ChatGPT authorizations are decided at once too, without a
        /// consent page (see ``ChappieEmulator/setSignInWithChatGPTConsent(_:)``).
        public var autoApproveAfterPolls: Int?
        /// Lifetime of issued access tokens, in seconds: the JWT `exp` and the `expires_in` field.
        public var accessTokenLifetime: Int
        /// The signed-in ChatGPT account described by every issued token.
        public var account: Account
        /// Lifetime of a device code, in seconds (the real service uses 15 minutes).
        public var deviceCodeLifetime: Int
        /// Percentage points added to the primary (5-hour) window per served response; the weekly
        /// window grows by a fifth of it, rounded up.
        public var usagePercentPerResponse: Int
        /// Number of UTF-8 characters (not bytes) per `response.output_text.delta` of a scripted text reply.
        public var deltaCharacters: Int
        /// Whether `GET /backend-api/codex/responses` upgrades to a WebSocket; when
        /// false the upgrade is answered 426 Upgrade Required, which makes Codex fall back to HTTP.
        public var acceptsWebSockets: Bool
        /// The reply for every `/responses` call (HTTP or WebSocket) that no queued reply claims;
        /// nil lets the scripted model answer. `chappie emulator --replay-sse FILE` sets a
        /// ``ScriptedReply/replaySSE(_:chunkOffsets:chunkInterval:)`` here.
        public var standingReply: ScriptedReply?
        /// The Sign in with ChatGPT issuer and public API (`/v1`): user name, the app's weekly cap,
        /// the shape of `response.completed`.
        public var signInWithChatGPT: SignInWithChatGPTOptions
        /// The largest inline image (`input_image` with a `data:` URL) a `/responses` request may
        /// carry, in decoded bytes; a larger one is refused with a 400 (default 20,000,000, the
        /// per-image limit the Responses API documents). Set it lower to test the refusal.
        public var maximumImageBytes = 20_000_000

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - port: Loopback port; 0 picks a free one.
        ///   - pollingIntervalSeconds: Device-code poll interval in seconds (default 5).
        ///   - autoApproveAfterPolls: Pending polls before automatic approval (default 2); nil = never.
        ///   - accessTokenLifetime: Access-token lifetime in seconds (default 3600).
        ///   - account: The account in every token (default ``Account/init(email:planType:accountID:userID:)``).
        ///   - deviceCodeLifetime: Device-code lifetime in seconds (default 900).
        ///   - usagePercentPerResponse: Primary-window percentage points per response (default 1).
        ///   - deltaCharacters: Characters per text delta (default 8).
        ///   - acceptsWebSockets: Whether WebSocket upgrades are accepted (default true).
        ///   - standingReply: The reply when none is queued (default nil: the scripted model).
        ///   - signInWithChatGPT: The SIWC personality's options (default ``SignInWithChatGPTOptions/init(userName:weeklyResponseCap:completedOutputIsEmpty:)``).
        public init(
            port: Int = 0,
            pollingIntervalSeconds: Int = 5,
            autoApproveAfterPolls: Int? = 2,
            accessTokenLifetime: Int = 3600,
            account: Account = Account(),
            deviceCodeLifetime: Int = 900,
            usagePercentPerResponse: Int = 1,
            deltaCharacters: Int = 8,
            acceptsWebSockets: Bool = true,
            standingReply: ScriptedReply? = nil,
            signInWithChatGPT: SignInWithChatGPTOptions = .init()
        ) {
            self.port = port
            self.pollingIntervalSeconds = pollingIntervalSeconds
            self.autoApproveAfterPolls = autoApproveAfterPolls
            self.accessTokenLifetime = accessTokenLifetime
            self.account = account
            self.deviceCodeLifetime = deviceCodeLifetime
            self.usagePercentPerResponse = usagePercentPerResponse
            self.deltaCharacters = max(1, deltaCharacters)
            self.acceptsWebSockets = acceptsWebSockets
            self.standingReply = standingReply
            self.signInWithChatGPT = signInWithChatGPT
        }
    }

    /// The ChatGPT account the emulator signs in; its values go into the JWT claims of the tokens it issues.
    public struct Account: Sendable, Equatable {
        /// The `email` claim (also `https://api.openai.com/profile.email`).
        public var email: String
        /// The raw `chatgpt_plan_type` claim, e.g. `plus`.
        public var planType: String
        /// The `chatgpt_account_id` claim, sent back by clients as `ChatGPT-Account-ID`.
        public var accountID: String
        /// The `chatgpt_user_id` claim.
        public var userID: String

        /// Creates an account description.
        public init(
            email: String = "user@example.com",
            planType: String = "plus",
            accountID: String = "5f0a1c2e-7b3d-4e8f-9a6b-0c1d2e3f4a5b",
            userID: String = "user-EmuLatorUser0000000001"
        ) {
            self.email = email
            self.planType = planType
            self.accountID = accountID
            self.userID = userID
        }
    }
}
