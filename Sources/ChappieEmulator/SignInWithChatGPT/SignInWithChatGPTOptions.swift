extension ChappieEmulator {
    /// How the emulator's Sign in with ChatGPT personality behaves: the issuer at
    /// `/.well-known/openid-configuration` and the public API at `/v1`. Every field has a default,
    /// so `.init()` is a working setup.
    public struct SignInWithChatGPTOptions: Sendable, Equatable {
        /// The `name` claim of ID tokens (with the `profile` scope); the email is
        /// ``Account/email`` of ``Configuration/account``.
        public var userName: String
        /// The app's weekly cap on plan usage, counted in responses per registration: after this
        /// many `POST /v1/responses` streams of one issued client, every further request answers
        /// 429 `subscription_sharing_usage_limit_exceeded`. nil = no cap.
        public var weeklyResponseCap: Int?
        /// Whether `response.completed` on `/v1/responses` carries an empty `output` (as observed
        /// on the live service); clients must then rebuild the output from
        /// `response.output_item.done` events.
        public var completedOutputIsEmpty: Bool

        /// Creates options.
        ///
        /// - Parameters:
        ///   - userName: The ID token's `name` claim (default "Emulator User").
        ///   - weeklyResponseCap: Responses per registration before the weekly cap (default nil: none).
        ///   - completedOutputIsEmpty: Whether `response.completed` has an empty `output` (default false).
        public init(userName: String = "Emulator User", weeklyResponseCap: Int? = nil, completedOutputIsEmpty: Bool = false) {
            self.userName = userName
            self.weeklyResponseCap = weeklyResponseCap
            self.completedOutputIsEmpty = completedOutputIsEmpty
        }
    }
}
