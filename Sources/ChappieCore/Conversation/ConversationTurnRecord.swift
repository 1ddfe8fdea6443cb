import ChappieTransport
import Foundation

/// What one turn of a ``ChappieClient`` did, as its conversation engine recorded it: the one
/// source a recorder (the runtime's thread store) needs, so that it keeps no copy of the
/// conversation and rebuilds nothing from stream events.
package struct ConversationTurnRecord: Sendable {
    /// A host tool call of the turn, in the order the model asked for them.
    package struct ToolCall: Sendable {
        /// The call as the model sent it.
        package var call: ChappieToolCall
        /// Whether the app's approval handler was asked (the tool's policy is `.ask`).
        package var askedForApproval = false
        /// How the call ended; nil when the turn ended before it finished.
        package var result: ChappieToolExecutionResult?

        package init(call: ChappieToolCall, askedForApproval: Bool = false, result: ChappieToolExecutionResult? = nil) {
            self.call = call
            self.askedForApproval = askedForApproval
            self.result = result
        }
    }

    /// The messages the turn sent.
    package var input: [ChappieInputMessage]
    /// The completed response; nil when the turn failed.
    package var response: ChappieResponse?
    /// Why the turn did not complete (a ``ChappieClientError``, ``ChappieInputError`` or
    /// `CancellationError`); nil when it completed.
    package var failure: (any Error)?
    /// The reply text shown while the turn ran (what a failed turn showed).
    package var shownText = ""
    /// The host tool calls, in request order.
    package var toolCalls: [ToolCall] = []
    /// The opaque items dropped from the context during the turn, if any.
    package var contextRepair: ChappieContextRepair?
    /// The revision of the context the turn started from.
    package var baseRevision: Int
    /// The context after the turn (and after the changes its tool handlers asked for).
    package var context: ChappieClientContext
    /// The revision of ``context``.
    package var revision = 0
    /// The transcript items the turn appended to the context of ``baseRevision``, when that is
    /// all that changed in it but its model and date; nil when the turn replaced or changed the
    /// conversation otherwise (an explicit transcript, a repair, a change asked for by a tool
    /// handler), so that only the whole ``context`` tells what it is now.
    package var appendedItems: [ChappieTranscriptItem]?

    package init(input: [ChappieInputMessage], baseRevision: Int, context: ChappieClientContext) {
        self.input = input
        self.baseRevision = baseRevision
        self.context = context
    }
}

/// Collects a turn's record from the events the turn emits, from whichever task emits them (tool
/// handlers run concurrently), and what the turn committed to the context.
final class TurnLog: Sendable {
    fileprivate struct State {
        var shownText = ""
        var toolCalls: [ConversationTurnRecord.ToolCall] = []
        var contextRepair: ChappieContextRepair?
        var appended: [ChappieTranscriptItem] = []
        var commits = 0
        var replaced = false
    }

    private let state = LockedBox(State())

    /// Records what `event` tells about the turn. Text is not taken from the deltas (the hot
    /// path): ``noteShown(_:)`` gets it per round.
    func note(_ event: ChappieStreamEvent) {
        switch event {
        case .textDelta, .reasoningSummaryDelta, .webSearch, .usageLimits, .completed: return
        case .toolCallRequested, .approvalRequested, .toolCallCompleted, .contextRepaired: break
        }
        state.withLock { state in
            switch event {
            case .toolCallRequested(let request):
                state.toolCall(request.call) { _ in }
            case .approvalRequested(let request):
                state.toolCall(request.call) { $0.askedForApproval = true }
            case .toolCallCompleted(let result):
                state.toolCall(result.call) { $0.result = result }
            case .contextRepaired(let repair):
                state.contextRepair = repair
            case .textDelta, .reasoningSummaryDelta, .webSearch, .usageLimits, .completed:
                break
            }
        }
    }

    /// A round showed `text`: the whole reply text of a completed round, or what a failed or
    /// cancelled round showed before it ended.
    func noteShown(_ text: String) {
        guard !text.isEmpty else { return }
        state.withLock { $0.shownText += text }
    }

    /// The turn made `items` (what it added after the conversation) the conversation's.
    func noteCommitted(_ items: [ChappieTranscriptItem]) {
        state.withLock { state in
            state.appended = items
            state.commits += 1
        }
    }

    /// The turn replaced the conversation (an explicit transcript, or a repair).
    func noteReplaced() {
        state.withLock { $0.replaced = true }
    }

    /// The items the turn appended, when its commit is the only change from revision `base` to
    /// `revision`; nil otherwise.
    func appendedItems(from base: Int, to revision: Int) -> [ChappieTranscriptItem]? {
        state.withLock { state in
            !state.replaced && revision == base + state.commits ? state.appended : nil
        }
    }

    /// Copies what the log collected into `record`.
    func fill(_ record: inout ConversationTurnRecord) {
        state.withLock { state in
            record.shownText = state.shownText
            record.toolCalls = state.toolCalls
            record.contextRepair = state.contextRepair
        }
    }
}

extension TurnLog.State {
    /// Updates the record of `call` (by call id), adding it first when new.
    fileprivate mutating func toolCall(_ call: ChappieToolCall, _ update: (inout ConversationTurnRecord.ToolCall) -> Void) {
        if let index = toolCalls.firstIndex(where: { $0.call.callID == call.callID }) {
            update(&toolCalls[index])
        } else {
            var entry = ConversationTurnRecord.ToolCall(call: call)
            update(&entry)
            toolCalls.append(entry)
        }
    }
}
