import ChappieSDK
import Foundation

/// What a runtime turn delivers, in order, in a shape an app can render without knowing the
/// backend's wire events.
///
/// A turn's events are: ``turnStarted(_:)`` first; then any number of deltas, tool-call,
/// approval and usage events; then exactly one of ``turnCompleted(_:)`` or ``turnFailed(_:)``,
/// each sent only after the turn is persisted. After ``turnFailed(_:)`` the stream throws the
/// turn's error; a cancelled turn (the consumer stopped iterating) is persisted but delivers
/// nothing more.
public enum ChappieRuntimeTurnEvent: Sendable, Hashable {
    /// The turn started in the given thread.
    case turnStarted(ChappieRuntimeTurnStart)
    /// More assistant text; never empty; in order.
    case textDelta(String)
    /// More reasoning-summary text.
    case reasoningSummaryDelta(String)
    /// A web search step started or finished (``/ChappieSDK/ChappieStreamEvent/webSearch(_:)``).
    case webSearch(ChappieWebSearchCall)
    /// The model asked for a host tool call.
    case toolCallRequested(ChappieRuntimeToolCall)
    /// A host tool call finished (completed, failed, denied or cancelled).
    case toolCallCompleted(ChappieRuntimeToolCall)
    /// A tool call waits for the user's approval (``ChappieRuntimeApproval/Decision/pending``),
    /// and then, once it is decided, the same call again with ``ChappieRuntimeApproval/Decision/approved``
    /// or ``ChappieRuntimeApproval/Decision/denied``, before its ``toolCallCompleted(_:)``.
    case approvalRequested(ChappieRuntimeApproval)
    /// A usage-limit snapshot (rate-limit windows) arrived during the turn.
    case usageLimits(ChappieUsageLimitSnapshot)
    /// The server could no longer read the thread's opaque items (encrypted reasoning and
    /// compaction items): they were dropped and the message is being sent again in full, once.
    /// The turn record keeps the repair (``ChappieThreadTurn/contextRepair``).
    case contextRepaired(ChappieContextRepair)
    /// The turn's token usage, sent once before ``turnCompleted(_:)`` when the server reported it.
    case usage(ChappieTokenUsage)
    /// The turn completed and is persisted; carries the stored turn record.
    case turnCompleted(ChappieThreadTurn)
    /// The turn failed and the failure is persisted; carries the stored turn record. The stream
    /// then throws the turn's error.
    case turnFailed(ChappieThreadTurn)
}

/// The payload of ``ChappieRuntimeTurnEvent/turnStarted(_:)``.
public struct ChappieRuntimeTurnStart: Sendable, Hashable {
    /// The thread the turn belongs to (created by this turn when it is the thread's first).
    public var threadID: UUID
    /// The identifier the turn's record will have.
    public var turnID: UUID
    /// The messages the turn sends after the transcript.
    public var input: [ChappieInputMessage]

    /// Creates a turn-start payload.
    public init(threadID: UUID, turnID: UUID, input: [ChappieInputMessage]) {
        self.threadID = threadID
        self.turnID = turnID
        self.input = input
    }
}

extension ChappieRuntimeTurnEvent: ChappieMergeableEvent {
    /// Text and reasoning-summary deltas merge with their own kind when a consumer falls behind.
    package var mergeableText: (kind: Int, text: String)? {
        switch self {
        case .textDelta(let text): (0, text)
        case .reasoningSummaryDelta(let text): (1, text)
        default: nil
        }
    }

    /// The delta of `kind` (0 text, 1 reasoning summary).
    package static func mergedText(kind: Int, text: String) -> ChappieRuntimeTurnEvent {
        kind == 0 ? .textDelta(text) : .reasoningSummaryDelta(text)
    }
}
