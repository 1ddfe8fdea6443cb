import ChappieSDK
import Foundation

/// What the runtime recorded about one turn: the input, the outcome, the output items, tool
/// calls, token usage and, for a turn that did not complete, the error.
public struct ChappieThreadTurn: Sendable, Hashable, Codable, Identifiable {
    /// How a turn ended.
    public enum Status: String, Sendable, Hashable, Codable {
        /// The response completed and is part of the transcript.
        case completed
        /// The turn failed; ``ChappieThreadTurn/failure`` says why. The transcript is unchanged,
        /// unless text was shown first: then it keeps the turn with that text (``isPartial``).
        case failed
        /// The turn was cancelled before it completed. The transcript is unchanged, unless text
        /// was shown first: then it keeps the turn with that text (``isPartial``).
        case cancelled
    }

    /// The turn's identifier.
    public var id: UUID
    /// The messages the turn sent after the stored transcript (usually one user message).
    public var input: [ChappieInputMessage]
    /// When the turn started.
    public var startedAt: Date
    /// When the turn ended (completed, failed or cancelled).
    public var endedAt: Date
    /// How the turn ended.
    public var status: Status
    /// The model that answered, when the server said.
    public var model: String?
    /// The server's response id (`resp_…`), for a completed turn.
    public var responseID: String?
    /// The assistant text; for a turn that did not complete, the text shown before it ended
    /// ("" when none was).
    public var outputText: String
    /// The reasoning summary text, if the model sent one.
    public var reasoningSummary: String
    /// Every output item as the server sent it (`message`, `reasoning`, `function_call`, …).
    public var items: [ChappieJSONValue]
    /// The tool calls of the turn, in the order they were requested, with their final status.
    public var toolCalls: [ChappieRuntimeToolCall]
    /// The approvals the turn asked for, in order.
    public var approvals: [ChappieRuntimeApproval]
    /// Token counts reported by the server, if any.
    public var usage: ChappieTokenUsage?
    /// Why the turn did not complete; nil for a completed turn.
    public var failure: ChappieThreadTurnFailure?
    /// The transport the turn's last response streamed over, when it completed.
    public var transport: ChappieStreamingTransport?
    /// What was dropped from the thread's transcript during the turn because the server could no
    /// longer read it (encrypted reasoning and compaction items); nil when nothing was. The
    /// thread's note that its model context lost those items (``/ChappieSDK/ChappieContextRepair/summary``).
    public var contextRepair: ChappieContextRepair?

    /// True when ``outputText`` is a reply cut short: text shown before the turn failed or was
    /// cancelled.
    public var isPartial: Bool { status != .completed && !outputText.isEmpty }

    /// Creates a turn record. Every collection defaults to empty.
    public init(id: UUID = UUID(), input: [ChappieInputMessage], startedAt: Date, endedAt: Date, status: Status,
                model: String? = nil, responseID: String? = nil, outputText: String = "", reasoningSummary: String = "",
                items: [ChappieJSONValue] = [], toolCalls: [ChappieRuntimeToolCall] = [],
                approvals: [ChappieRuntimeApproval] = [], usage: ChappieTokenUsage? = nil,
                failure: ChappieThreadTurnFailure? = nil, transport: ChappieStreamingTransport? = nil,
                contextRepair: ChappieContextRepair? = nil) {
        self.id = id
        self.input = input
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.status = status
        self.model = model
        self.responseID = responseID
        self.outputText = outputText
        self.reasoningSummary = reasoningSummary
        self.items = items
        self.toolCalls = toolCalls
        self.approvals = approvals
        self.usage = usage
        self.failure = failure
        self.transport = transport
        self.contextRepair = contextRepair
    }
}
