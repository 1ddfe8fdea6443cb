import ChappieTransport
import Foundation

/// Classifies the public Responses API's failures (SIWC.md §6.2–6.3) into the pipeline's
/// ``BackendFailure`` and the caller's ``ChappieClientError``, each with its documented action:
/// plan-usage codes are never retried, except the two "unavailable" ones (a bounded back-off,
/// credentials kept); a usage limit is ``ChappieClientError/usageLimitReached(_:)`` with no reset
/// time and the Manage-usage link; everything else is ``ChappieClientError/publicAPI(_:)`` with
/// its code, `error.param` and the request id. The server's `message` is never used: it can
/// echo the user's input.
enum PublicAPIErrorMapping {
    /// The failure an HTTP answer with `status` and error body `error` stands for;
    /// `requestID` is the answer's `x-request-id`.
    static func classify(status: Int, error: ServerErrorBody, headers: HTTPFields, requestID: String?) -> BackendFailure {
        let code = successor(of: error.code)
        let admission = error.isDetail && code == nil && [401, 403, 503].contains(status)
        let retryAfter = BackendFailure.retryAfter(headers[Wire.retryAfter])
        func apiError(_ fallback: ChappieAPIError.Code) -> ChappieClientError {
            .publicAPI(ChappieAPIError(code: code.map(ChappieAPIError.Code.init(rawValue:)) ?? fallback, status: status, param: error.param,
                                       requestID: requestID, retryAfter: retryAfter.map { Duration.seconds($0) }))
        }
        if code == Wire.usageLimitExceeded { return .terminal(usageLimit(requestID: requestID)) }
        if code == Wire.contextLengthExceeded { return .terminal(.contextWindowExceeded(Wire.contextWindowSentence)) }
        if code == ResponsesErrorMapping.unreadableContentCode { return .terminal(.unreadableEncryptedContent(Wire.unreadableContentSentence)) }
        switch status {
        case 401:
            // Renewed once by the pipeline; if the retry is refused too, the caller gets this.
            return .unauthorized(code: code, error: apiError(.admissionRefused))
        case 429:
            return .rateLimited(retryAfter: retryAfter, error: apiError(.rateLimited))
        case 300..<400:
            return .terminal(.httpError(status, "the server answered with a redirect, which Chappie never follows"))
        case 503 where admission:
            return .transient(apiError(.admissionRefused))
        case 500..<600:
            // Both "unavailable" codes and plain server errors: a bounded back-off, credentials kept.
            return .transient(apiError(.serverError))
        case 403 where admission:
            return .terminal(apiError(.admissionRefused))
        default:
            return .terminal(apiError(ChappieAPIError.Code(rawValue: "http_\(status)")))
        }
    }

    /// The failure of a `response.failed` or `error` event inside a stream, before (`shown`
    /// false) or after text was shown. Before any text an "unavailable" code is retried like its
    /// HTTP 503; after, every failure ends the response (the shown text is kept).
    static func streamFailure(_ error: ServerErrorBody, status: Int?, requestID: String?, shown: Bool) -> any Error {
        let code = successor(of: error.code)
        if code == Wire.usageLimitExceeded { return usageLimit(requestID: requestID) }
        if code == Wire.contextLengthExceeded { return ChappieClientError.contextWindowExceeded(Wire.contextWindowSentence) }
        if code == ResponsesErrorMapping.unreadableContentCode { return ChappieClientError.unreadableEncryptedContent(Wire.unreadableContentSentence) }
        let apiError = ChappieClientError.publicAPI(ChappieAPIError(
            code: code.map(ChappieAPIError.Code.init(rawValue:)) ?? .serverError, status: status, param: error.param, requestID: requestID))
        if !shown, code == Wire.usageUnavailable || code == Wire.userUnavailable || (status ?? 0) >= 500 {
            return BackendFailure.transient(apiError)
        }
        return apiError
    }

    /// The usage-limit error of this route: no plan, no reset time (none is reported, and one
    /// must not be guessed), Chappie's own sentence and the Manage-usage link.
    static func usageLimit(requestID: String?) -> ChappieClientError {
        .usageLimitReached(ChappieUsageLimit(plan: nil, resetsAt: nil, window: nil, message: Wire.usageLimitSentence,
                                             manageUsageURL: ChappieAPIError.manageUsageURL, requestID: requestID))
    }

    /// `code` with legacy `subscription_sharing_v2_…` codes replaced by their successors.
    static func successor(of code: String?) -> String? {
        guard let code = code?.lowercased(), !code.isEmpty else { return nil }
        guard code.hasPrefix(Wire.legacyPrefix) else { return code }
        return Wire.currentPrefix + code.dropFirst(Wire.legacyPrefix.count)
    }

    /// The request id of an answer: `x-request-id`, else `openai-request-id` (SIWC.md §2.6).
    static func requestID(in headers: HTTPFields) -> String? {
        (headers[Wire.requestIDHeader] ?? headers[Wire.openAIRequestIDHeader]).map { Redaction.clean($0) }
    }

    private enum Wire {
        static let usageLimitExceeded = "subscription_sharing_usage_limit_exceeded"
        static let usageUnavailable = "subscription_sharing_usage_unavailable"
        static let userUnavailable = "subscription_sharing_user_unavailable"
        static let contextLengthExceeded = "context_length_exceeded"
        static let legacyPrefix = "subscription_sharing_v2_"
        static let currentPrefix = "subscription_sharing_"
        static let retryAfter = "retry-after"
        static let requestIDHeader = "x-request-id"
        static let openAIRequestIDHeader = "openai-request-id"
        static let usageLimitSentence = "This app's use of the ChatGPT plan reached its limit for now."
        static let contextWindowSentence = "the conversation no longer fits the model's context window"
        static let unreadableContentSentence = "the server could not verify an encrypted item of the conversation (invalid_encrypted_content)"
    }
}
