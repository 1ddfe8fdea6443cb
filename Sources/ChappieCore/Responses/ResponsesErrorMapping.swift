import Foundation

/// Maps backend failures to ``ChappieClientError`` (PROTOCOL §5.4, §5.5, §7.3).
enum ResponsesErrorMapping {
    /// The error for a `response.failed` event.
    static func failed(_ error: ServerErrorBody) -> ChappieClientError {
        switch error.code {
        case "context_length_exceeded": .contextWindowExceeded(error.message)
        case "invalid_prompt": .invalidRequest(error.message)
        case unreadableContentCode: .unreadableEncryptedContent(error.message)
        case "server_is_overloaded", "slow_down": .serverOverloaded(error.message)
        case "insufficient_quota", "usage_not_included", "usage_limit_reached":
            .usageLimitReached(ChappieUsageLimit(plan: error.planType.map(ChappiePlan.init(rawValue:)), resetsAt: error.resetsAt,
                                                 window: nil, message: error.message,
                                                 retryAfter: error.resetsIn))
        default: .responseFailed(code: error.code, message: error.message)
        }
    }

    /// The error for a non-2xx HTTP answer (or a WebSocket `error` event with a status).
    static func http(status: Int, error: ServerErrorBody, usage: ChappieUsageLimitSnapshot?) -> ChappieClientError {
        switch status {
        case 400:
            switch error.code {
            case "context_length_exceeded": return .contextWindowExceeded(error.message)
            case unreadableContentCode: return .unreadableEncryptedContent(error.message)
            default: return .invalidRequest(error.message)
            }
        case 429 where error.type == "usage_limit_reached" || error.type == "usage_not_included":
            let window = usage?.primary.flatMap { $0.usedPercent >= 100 ? $0 : nil } ?? usage?.secondary.flatMap { $0.usedPercent >= 100 ? $0 : nil }
            let resetsAt = error.resetsAt ?? window?.resetsAt
            return .usageLimitReached(ChappieUsageLimit(plan: (error.planType.map(ChappiePlan.init(rawValue:))) ?? usage?.plan,
                                                        resetsAt: resetsAt, window: window, message: error.message,
                                                        retryAfter: error.resetsIn))
        case 503 where error.code == "server_is_overloaded" || error.code == "slow_down":
            return .serverOverloaded(error.message)
        default:
            return .httpError(status, error.message)
        }
    }

    /// The code of a request carrying an opaque item the server cannot read (HTTP 400 with
    /// `{"error":{"code":"invalid_encrypted_content","type":"invalid_request_error",…}}`, as the
    /// live service answers, openai/codex issues #8119 and #8145).
    static let unreadableContentCode = "invalid_encrypted_content"

    /// True for a 429 that names a usage limit (never retried).
    static func isUsageLimit(_ error: ServerErrorBody) -> Bool {
        error.type == "usage_limit_reached" || error.type == "usage_not_included"
    }
}
