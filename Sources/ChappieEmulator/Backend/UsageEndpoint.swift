import Foundation

/// `GET /backend-api/wham/usage` (PROTOCOL §7.2): the `RateLimitStatusPayload` with integer window
/// fields (Codex decodes them as 32-bit integers), plus the `user_id`/`account_id`/`email` the
/// real service adds. Requires a valid bearer.
struct UsageEndpoint {
    /// The shared state.
    let services: EmulatorServices

    /// Serves the usage payload.
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        if let rejection = await BackendAuthorization.reject(request, services: services) { return rejection }
        let snapshot = await services.usage.snapshot()
        let now = Int(Date().timeIntervalSince1970)
        let account = services.configuration.account
        func window(_ percent: Int, _ seconds: Int, _ resetAt: Int) -> JSONValue {
            [
                "used_percent": .int(percent),
                "limit_window_seconds": .int(seconds),
                "reset_after_seconds": .int(max(0, resetAt - now)),
                "reset_at": .int(resetAt),
            ]
        }
        let limitReached = snapshot.primaryUsedPercent >= 100
        return .json(200, [
            "user_id": .string(account.userID),
            "account_id": .string(account.accountID),
            "email": .string(account.email),
            "plan_type": .string(account.planType),
            "rate_limit": [
                "allowed": .bool(!limitReached),
                "limit_reached": .bool(limitReached),
                "primary_window": window(snapshot.primaryUsedPercent, UsageMeter.primaryWindowSeconds, snapshot.primaryResetAt),
                "secondary_window": window(
                    snapshot.secondaryUsedPercent, UsageMeter.secondaryWindowSeconds, snapshot.secondaryResetAt
                ),
            ],
            "code_review_rate_limit": .null,
            "additional_rate_limits": [],
            "credits": [
                "has_credits": false,
                "unlimited": false,
                "balance": "0",
                "approx_local_messages": [0, 0],
                "approx_cloud_messages": [0, 0],
            ],
            "rate_limit_reached_type": limitReached ? ["type": "rate_limit_reached"] : .null,
            "promo": .null,
        ])
    }
}
