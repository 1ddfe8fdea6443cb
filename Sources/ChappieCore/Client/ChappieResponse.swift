/// Token counts of one response. `inputTokens` already includes `cachedInputTokens`.
public struct ChappieTokenUsage: Sendable, Hashable, Codable {
    /// Input tokens, cached ones included.
    public var inputTokens: Int
    /// Input tokens served from the prompt cache.
    public var cachedInputTokens: Int
    /// Output tokens, reasoning included.
    public var outputTokens: Int
    /// Output tokens spent on reasoning.
    public var reasoningOutputTokens: Int
    /// Total tokens.
    public var totalTokens: Int

    /// Creates a usage value.
    public init(inputTokens: Int, cachedInputTokens: Int, outputTokens: Int, reasoningOutputTokens: Int, totalTokens: Int) {
        self.inputTokens = inputTokens
        self.cachedInputTokens = cachedInputTokens
        self.outputTokens = outputTokens
        self.reasoningOutputTokens = reasoningOutputTokens
        self.totalTokens = totalTokens
    }
}

/// A completed model response.
public struct ChappieResponse: Sendable, Hashable, Codable {
    /// The server's response id (`resp_…`).
    public var id: String
    /// The model that answered (may differ from the one requested).
    public var model: String?
    /// The assistant text, all output text parts joined.
    public var outputText: String
    /// The reasoning summary text, if the model sent one.
    public var reasoningSummary: String
    /// Token counts, when the server sent them.
    public var usage: ChappieTokenUsage?
    /// Every output item as the server sent it (`message`, `reasoning`, `function_call`, …).
    public var items: [ChappieJSONValue]
    /// How the response was streamed; nil when not known (a response made by hand).
    public var transport: ChappieStreamingTransport?

    /// The sources the reply cites (the `url_citation` annotations of its text, from web search),
    /// in order. Their indices count in ``outputText``, also when the reply has several messages
    /// (``ChappieURLCitation/range(in:)`` of `outputText` is the cited span).
    public var citations: [ChappieURLCitation] {
        ChappieURLCitation.citations(inOutputItems: items)
    }

    /// The web search steps the model took for this reply, in order (finished ones, as the
    /// server reported them at the end).
    public var webSearchCalls: [ChappieWebSearchCall] {
        items.compactMap(ChappieWebSearchCall.init(outputItem:))
    }

    /// Creates a response value.
    public init(id: String, model: String?, outputText: String, reasoningSummary: String = "", usage: ChappieTokenUsage?, items: [ChappieJSONValue],
                transport: ChappieStreamingTransport? = nil) {
        self.id = id
        self.model = model
        self.outputText = outputText
        self.reasoningSummary = reasoningSummary
        self.usage = usage
        self.items = items
        self.transport = transport
    }
}

/// The transport a response streamed over.
public enum ChappieStreamingTransport: String, Sendable, Hashable, Codable {
    /// The Responses WebSocket (`wss://…/codex/responses`).
    case webSocket = "websocket"
    /// HTTP with server-sent events (`POST …/codex/responses`).
    case httpSSE = "http"
}

/// What a stream delivers, in order. A stream ends in exactly one outcome: `.completed` followed
/// by the end of the sequence, or a thrown error (``ChappieClientError``: failed, incomplete, ended
/// before completion, idle timeout, …) or `CancellationError`.
public enum ChappieStreamEvent: Sendable, Hashable {
    /// More assistant text; never empty; in order.
    case textDelta(String)
    /// More reasoning-summary text.
    case reasoningSummaryDelta(String)
    /// A web search step started or finished (``ChappieWebSearchCall/isFinished``): searching
    /// for a query, opening a page. Only when web search is on.
    case webSearch(ChappieWebSearchCall)
    /// A usage snapshot from response headers or a mid-stream event.
    case usageLimits(ChappieUsageLimitSnapshot)
    /// The model called a host tool; the SDK is about to apply its policy.
    case toolCallRequested(ChappieToolExecutionRequest)
    /// A tool with the `.ask` policy awaits the approval handler.
    case approvalRequested(ChappieApprovalRequest)
    /// A tool call finished; its output goes back to the model automatically.
    case toolCallCompleted(ChappieToolExecutionResult)
    /// The server could no longer read the conversation's opaque items (encrypted reasoning and
    /// compaction items, after a key change on its side): they were dropped from the context and
    /// the request is being sent again in full, once. Comes before any text of the turn.
    case contextRepaired(ChappieContextRepair)
    /// The response is complete.
    case completed(ChappieResponse)
}

extension ChappieStreamEvent: ChappieMergeableEvent {
    /// Text and reasoning-summary deltas merge with their own kind when a consumer falls behind.
    package var mergeableText: (kind: Int, text: String)? {
        switch self {
        case .textDelta(let text): (0, text)
        case .reasoningSummaryDelta(let text): (1, text)
        default: nil
        }
    }

    /// The delta of `kind` (0 text, 1 reasoning summary).
    package static func mergedText(kind: Int, text: String) -> ChappieStreamEvent {
        kind == 0 ? .textDelta(text) : .reasoningSummaryDelta(text)
    }
}
