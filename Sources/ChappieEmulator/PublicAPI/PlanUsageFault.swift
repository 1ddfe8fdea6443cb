extension ChappieEmulator {
    /// A fault for the next `POST /v1/responses` that passes the Sign in with ChatGPT rules: the
    /// errors an app on a user's ChatGPT plan must handle, before the stream or in its middle.
    /// Queue it with ``ChappieEmulator/enqueuePlanUsageFault(_:)``; each fault answers one
    /// request, FIFO, before any ``ScriptedReply`` queued with ``ChappieEmulator/enqueue(_:)``
    /// (which `/v1/responses` also takes: ``ScriptedReply/disconnect(afterEvents:)`` or
    /// ``ScriptedReply/cut(_:afterEvents:ending:)`` end a stream before `response.completed`).
    public enum PlanUsageFault: Sendable, Equatable {
        /// Before the stream: HTTP `status` with the structured body
        /// `{"error":{"message":…,"type":…,"param":<param>,"code":<code>}}`.
        case error(status: Int, code: String, param: String? = nil)
        /// Before the stream: a direct-route admission refusal with `status` (401, 403 or 503) and
        /// the body `{"detail":"…"}`, or `{"detail":{"code":<nestedCode>,"message":…}}`.
        case admission(status: Int, nestedCode: String? = nil)
        /// A 200 stream of `afterDeltas` text deltas, then `response.failed` with `error.code`
        /// `code` (e.g. `subscription_sharing_usage_limit_exceeded`), then the connection closes.
        case failedMidStream(code: String, afterDeltas: Int)
        /// A 200 stream of `afterDeltas` text deltas, then an `error` event
        /// `{"type":"error","code":…,"message":…,"param":null,"sequence_number":…}`, then the
        /// connection closes.
        case errorEventMidStream(code: String, afterDeltas: Int)
        /// The normal reply with `data: [DONE]` in place of `response.completed` (an interrupted stream).
        case doneBeforeCompleted
        /// The normal reply without a `Content-Type` header (valid SSE; clients must accept it).
        case withoutContentType
        /// The normal reply with this `Content-Type` (clients must refuse one other than
        /// `text/event-stream`).
        case contentType(String)
        /// The normal reply, with an empty `output` in `response.completed`.
        case emptyCompletedOutput

        /// 403 `subscription_sharing_user_not_eligible`.
        public static let userNotEligible = PlanUsageFault.error(status: 403, code: "subscription_sharing_user_not_eligible")
        /// 429 `subscription_sharing_usage_limit_exceeded` (no reset time).
        public static let usageLimitExceeded = PlanUsageFault.error(status: 429, code: "subscription_sharing_usage_limit_exceeded")
        /// 503 `subscription_sharing_usage_unavailable`.
        public static let usageUnavailable = PlanUsageFault.error(status: 503, code: "subscription_sharing_usage_unavailable")
        /// 403 `subscription_sharing_route_not_supported`.
        public static let routeNotSupported = PlanUsageFault.error(status: 403, code: "subscription_sharing_route_not_supported")
        /// 401 `subscription_sharing_invalid_user`.
        public static let invalidUser = PlanUsageFault.error(status: 401, code: "subscription_sharing_invalid_user")
        /// 403 `chatpass_v2_scope_not_authorized`.
        public static let scopeNotAuthorized = PlanUsageFault.error(status: 403, code: "chatpass_v2_scope_not_authorized")
        /// 403 `chatpass_v2_invalid_authorization_context`.
        public static let invalidAuthorizationContext = PlanUsageFault.error(
            status: 403, code: "chatpass_v2_invalid_authorization_context"
        )
        /// 503 `subscription_sharing_user_unavailable`.
        public static let userUnavailable = PlanUsageFault.error(status: 503, code: "subscription_sharing_user_unavailable")
        /// 404 `model_not_found` with `param` `model`.
        public static let modelNotFound = PlanUsageFault.error(status: 404, code: "model_not_found", param: "model")
        /// 400 `subscription_sharing_unsupported_capability` naming `param`.
        public static func unsupportedCapability(param: String) -> PlanUsageFault {
            .error(status: 400, code: "subscription_sharing_unsupported_capability", param: param)
        }
    }
}
