import Foundation

/// Why a client call failed. Every message is sanitized, redacted and bounded; none carries a
/// token, an Authorization header or a raw response body beyond its first few hundred bytes.
public enum ChappieClientError: Error, Sendable, Equatable, LocalizedError {
    /// No credential is stored for this configuration: sign in first.
    case missingCredential
    /// The credential cannot be renewed (no refresh token): sign in again.
    case missingRefreshToken
    /// The credential has no ChatGPT account id, which the backend requires.
    case missingAccountID
    /// Silent refresh is impossible; the reason says why. Show sign-in again.
    case reauthenticationRequired(String)
    /// The account's usage limit is reached; carries plan, window and reset time. Not retried.
    case usageLimitReached(ChappieUsageLimit)
    /// The model called a declared tool that has no registered handler (tool name).
    case missingToolHandler(String)
    /// A tool call was denied (tool name, reason).
    case toolApprovalDenied(String, String)
    /// The server answered with an unexpected HTTP status (status, sanitized message).
    case httpError(Int, String)
    /// A response sent again after a dropped connection replayed different text; carries the text
    /// shown so far. Chappie sends a request again only while no text was shown (a drop after
    /// that is ``streamEndedBeforeCompletion``), so its transports no longer report this.
    case streamingTransportReplayDiverged(String)
    /// The model kept calling tools past the round limit (the limit).
    case toolLoopLimitExceeded(Int)
    /// The conversation no longer fits the model's context window.
    case contextWindowExceeded(String)
    /// The backend rejected the request as invalid (HTTP 400 and similar); the server's reason.
    case invalidRequest(String)
    /// The server could not read an opaque item of the conversation (`invalid_encrypted_content`):
    /// a reasoning or compaction item sealed with a key the server no longer has, as after a
    /// key change on its side. Chappie repairs this by itself first: it drops those items (the
    /// messages stay), sends the request again in full, once, and reports the repair with
    /// ``ChappieStreamEvent/contextRepaired(_:)``. This error means the server refused the
    /// repaired request too; the server's reason. Start a new conversation
    /// (``ChappieClient/clearContext()``) to continue.
    case unreadableEncryptedContent(String)
    /// The backend is overloaded; try again later.
    case serverOverloaded(String)
    /// The response failed on the server (`response.failed`): code and message.
    case responseFailed(code: String?, message: String)
    /// The response ended early (`response.incomplete`) for the given reason, e.g. `max_output_tokens`.
    case responseIncomplete(reason: String)
    /// The stream closed before `response.completed`.
    case streamEndedBeforeCompletion
    /// A turn (`send`, `stream`, `response`, `compactContext()`) was started on this client from
    /// one of its own tool handlers: it would wait forever for the turn that waits for the
    /// handler, so nothing was sent. Start it after that turn ends, or on another client.
    case reentrantTurn
    /// The client was shut down (``ChappieClient/shutdown()``, or the end of
    /// ``ChappieClient/with(configuration:tools:toolApprovalHandler:isolation:_:)``): it takes no
    /// more turns, compactions or catalog requests, and a turn it was running when it shut down
    /// ends with this error (the text shown stays in its context). Nothing was sent. Create a
    /// new client to continue; ``ChappieClient/context()`` of this one can seed it through
    /// ``ChappieClient/resumeContext(_:)``.
    case clientShutDown
    /// The server refused to open the streaming WebSocket: it answered the upgrade request with
    /// this HTTP status instead of switching protocols (404 Not Found, 421 Misdirected Request, …).
    /// `url` is the socket's address without query (scheme, host, port and path), so the message
    /// names the server that refused. Check the backend address or a proxy in between, or use the
    /// HTTP transport (``ChappieStreamingTransportPolicy``).
    case webSocketUpgradeRefused(status: Int, url: String)
    /// The server ended the streaming connection at its time limit after part of the reply was
    /// shown, so the reply is incomplete. The text shown stays in the conversation as a partial
    /// message; send the message again to get a whole reply (it goes over a new connection).
    /// Before any text is shown Chappie opens a new connection and resends by itself, once.
    case webSocketConnectionLimitReached
    /// No bytes arrived within the idle timeout (seconds).
    case idleTimeout(TimeInterval)
    /// The network failed; `mayHaveReachedServer` tells whether the request may have been processed.
    /// The message names the address that failed, without its query ("could not reach
    /// https://chatgpt.com/backend-api/codex/responses: connection refused").
    case network(String, mayHaveReachedServer: Bool)
    /// The server answered in a shape the SDK does not understand.
    case invalidResponse(String)
    /// The credential store failed.
    case credentialStore(String)
    /// The configured endpoints may not carry the credential (plain http to another machine, or a
    /// foreign backend with the OpenAI issuer); nothing was sent. See ``ChappieEndpoints``.
    case insecureEndpoint(ChappieEndpointError)
    /// A failure of the public Responses API that a Sign in with ChatGPT sign-in uses, or a
    /// request Chappie refused before sending it there; branch on its ``ChappieAPIError/code``.
    case publicAPI(ChappieAPIError)

    /// True when signing in again is the only way forward.
    public var requiresReauthentication: Bool {
        switch self {
        case .missingCredential, .missingRefreshToken, .missingAccountID, .reauthenticationRequired: true
        case .publicAPI(let error): error.requiresPlanUsageConsent
        default: false
        }
    }

    /// A one-line description for people.
    public var errorDescription: String? {
        switch self {
        case .missingCredential: "Not signed in: no saved credential for this configuration."
        case .missingRefreshToken: "The saved sign-in cannot be renewed; please sign in again."
        case .missingAccountID: "The saved sign-in has no ChatGPT account id; please sign in again."
        case .reauthenticationRequired(let reason): "Please sign in again: \(reason)"
        case .usageLimitReached(let limit):
            "Usage limit reached\(limit.plan.map { " on the \($0.displayName) plan" } ?? "")"
                + (limit.resetsAt.map { "; resets at \(ISO8601DateFormatter().string(from: $0))" } ?? "") + "."
        case .missingToolHandler(let name): "The model called the tool \(name), which has no handler."
        case .toolApprovalDenied(let name, let reason): "The tool \(name) was denied: \(reason)"
        case .httpError(let status, let message) where message.isEmpty || message == "HTTP \(status)":
            "The server answered HTTP \(status)."
        case .httpError(let status, let message): "The server answered HTTP \(status): \(message)"
        case .streamingTransportReplayDiverged: "The reconnected stream replayed different text; the reply was stopped."
        case .toolLoopLimitExceeded(let limit): "The model called tools more than \(limit) rounds in a row."
        case .contextWindowExceeded(let message): "The conversation is too long for the model: \(message)"
        case .invalidRequest(let message): "The server rejected the request: \(message)"
        case .unreadableEncryptedContent(let message):
            "The server could not read the saved reasoning or compaction data of this conversation: \(message)"
        case .serverOverloaded(let message): "The server is overloaded: \(message)"
        case .responseFailed(let code, let message): "The response failed\(code.map { " (\($0))" } ?? ""): \(message)"
        case .responseIncomplete(let reason): "The response ended early: \(reason)."
        case .streamEndedBeforeCompletion: "The connection closed before the response completed."
        case .reentrantTurn: "A tool handler started a turn on the client whose turn it runs in; start it after that turn, or on another client."
        case .clientShutDown: "The client was shut down; create a new client to continue (its context can be resumed there)."
        case .webSocketUpgradeRefused(let status, let url):
            "The server refused the WebSocket at \(url): HTTP \(status) instead of switching protocols."
        case .webSocketConnectionLimitReached: "The server ended the streaming connection at its time limit before the reply completed."
        case .idleTimeout(let seconds): "No data from the server for \(Int(seconds)) seconds."
        case .network(let message, _): DisplayedURL.sentence(message, lead: "Network error: ")
        case .invalidResponse(let message): "Unexpected answer from the server: \(message)"
        case .credentialStore(let message): "The saved sign-in could not be used: \(message)"
        case .insecureEndpoint(let error): error.description
        case .publicAPI(let error): error.description
        }
    }
}
