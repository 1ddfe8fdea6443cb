import Foundation

extension ChappieClientError {
    /// What the app or its user can do about the failure, one short sentence, or nil when there
    /// is nothing to suggest. It never contains a token or any other secret.
    public var recoverySuggestion: String? {
        switch self {
        case .missingCredential, .missingRefreshToken, .missingAccountID, .reauthenticationRequired: "Sign in again."
        case .usageLimitReached(let limit):
            if let resetsAt = limit.resetsAt {
                "Wait until \(ISO8601DateFormatter().string(from: resetsAt)), or upgrade your plan."
            } else if let retryAfter = limit.retryAfter {
                "Wait \(DurationWords.phrase(retryAfter)), or upgrade your plan."
            } else if limit.manageUsageURL != nil {
                "Wait until the plan's limit resets; see Manage usage in ChatGPT settings."
            } else {
                "Wait until the plan's limit resets, or upgrade your plan."
            }
        case .missingToolHandler: "Register a handler for that tool before sending."
        case .toolApprovalDenied: "Approve the tool call, or rephrase the request so the model does not need it."
        case .httpError(let status, _) where status == 429: "Wait a moment and try again."
        case .httpError(let status, _) where status == 408 || status >= 500: "Try again in a moment."
        case .httpError: nil
        case .streamingTransportReplayDiverged, .streamEndedBeforeCompletion, .webSocketConnectionLimitReached: "Send the message again."
        case .toolLoopLimitExceeded: "Send a simpler request, or check why the tool keeps being called."
        case .contextWindowExceeded: "Compact the conversation or start a new one, then send again."
        case .invalidRequest: "Change the request (model, options or input) and send again."
        case .unreadableEncryptedContent: "Start a new conversation."
        case .serverOverloaded: "Try again in a few minutes."
        case .responseFailed: "Try again; if it keeps failing, send a different request."
        case .responseIncomplete(let reason) where reason == "max_output_tokens": "Allow more output tokens, or ask for a shorter reply."
        case .responseIncomplete: "Send the message again."
        case .reentrantTurn: "Start the turn after the running one ends, or on another client."
        case .clientShutDown: "Create a new client to continue."
        case .webSocketUpgradeRefused: "Check the backend address or proxy, or use the HTTP transport."
        case .idleTimeout, .network: "Check the network connection and try again."
        case .invalidResponse: "Try again later; if it keeps failing, update the app."
        case .credentialStore: "Check that the keychain or credential folder is available, then try again."
        case .insecureEndpoint: "Point the endpoints at an https server, or at this machine."
        case .publicAPI(let error): error.recoverySuggestion
        }
    }

    /// True when making the same call again later may succeed without signing in again or
    /// changing the request: network trouble, timeouts, a dropped stream, an overloaded or failing
    /// server, a rate limit (Chappie already retried these with a bounded back-off), and a usage
    /// limit, once it resets. Wait ``retryAfter`` first when it is known.
    public var isRetryable: Bool {
        switch self {
        case .network, .idleTimeout, .streamEndedBeforeCompletion, .streamingTransportReplayDiverged, .serverOverloaded,
             .webSocketConnectionLimitReached, .usageLimitReached:
            true
        case .httpError(let status, _): status == 408 || status == 429 || status >= 500
        case .publicAPI(let error): error.isRetryable
        default: false
        }
    }

    /// How long to wait before trying again, when the error says: the server's `Retry-After` on a
    /// rate limit of the public API (``ChappieAPIError/retryAfter``), or the time until a usage
    /// limit resets: ``ChappieUsageLimit/retryAfter`` as the server counted it, else the time from
    /// now until ``ChappieUsageLimit/resetsAt`` (zero once it passed), in whole seconds. Nil when
    /// the server gave no time; a plain ``httpError(_:_:)`` never carries one.
    public var retryAfter: Duration? {
        switch self {
        case .usageLimitReached(let limit):
            limit.retryAfter ?? limit.resetsAt.map { Duration.seconds(max(0, $0.timeIntervalSinceNow).rounded(.up)) }
        case .publicAPI(let error): error.retryAfter
        default: nil
        }
    }
}
