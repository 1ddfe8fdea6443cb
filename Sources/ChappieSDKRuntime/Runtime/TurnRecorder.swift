import ChappieSDK
import Foundation

/// Turns the client's stream events for one turn into runtime events and collects what the
/// turn record needs. The only place that knows ``ChappieStreamEvent``.
struct TurnRecorder {
    private(set) var response: ChappieResponse?
    private var toolCalls: [ChappieRuntimeToolCall] = []
    private var approvals: [ChappieRuntimeApproval] = []
    /// The text shown so far, kept for a turn that ends before its response (appended, linear).
    private var shownText = ""
    /// What the client dropped from the context during the turn, if anything.
    private var contextRepair: ChappieContextRepair?

    /// The runtime events for `event`, in order (possibly none), after recording it.
    mutating func record(_ event: ChappieStreamEvent) -> [ChappieRuntimeTurnEvent] {
        switch event {
        case .textDelta(let text):
            shownText += text
            return [.textDelta(text)]
        case .reasoningSummaryDelta(let text):
            return [.reasoningSummaryDelta(text)]
        case .webSearch(let call):
            return [.webSearch(call)]
        case .usageLimits(let snapshot):
            return [.usageLimits(snapshot)]
        case .completed(let response):
            self.response = response
            return response.usage.map { [.usage($0)] } ?? []
        case .toolCallRequested(let request):
            return [record(toolCall: ChappieRuntimeToolCall(request.call, status: .requested))]
        case .toolCallCompleted(let result):
            // A call that waited for approval: its decision first, then the call's result.
            let pending = approvals.firstIndex { $0.callID == result.call.callID && $0.decision == .pending }
            let completed = record(toolCall: ChappieRuntimeToolCall(result))
            return (pending.map { [.approvalRequested(approvals[$0])] } ?? []) + [completed]
        case .contextRepaired(let repair):
            contextRepair = repair
            return [.contextRepaired(repair)]
        case .approvalRequested(let request):
            return [record(approval: ChappieRuntimeApproval(callID: request.call.callID, toolName: request.call.name,
                                                            arguments: request.call.rawArguments))]
        }
    }

    /// Records a tool call (new, or a later state of a known call id) and returns the event for it.
    /// A finished call settles a pending approval for the same call id.
    mutating func record(toolCall call: ChappieRuntimeToolCall) -> ChappieRuntimeTurnEvent {
        if let position = toolCalls.firstIndex(where: { $0.callID == call.callID }) {
            toolCalls[position] = call
        } else {
            toolCalls.append(call)
        }
        if call.status != .requested, let position = approvals.firstIndex(where: { $0.callID == call.callID && $0.decision == .pending }) {
            approvals[position].decision = call.status == .denied ? .denied : .approved
            if call.status == .denied { approvals[position].reason = call.output }
        }
        return call.status == .requested ? .toolCallRequested(call) : .toolCallCompleted(call)
    }

    /// Records an approval request (or its decision) and returns the event for it.
    mutating func record(approval: ChappieRuntimeApproval) -> ChappieRuntimeTurnEvent {
        if let position = approvals.firstIndex(where: { $0.callID == approval.callID }) {
            approvals[position] = approval
        } else {
            approvals.append(approval)
        }
        return .approvalRequested(approval)
    }

    /// The turn record: completed when a response arrived and `failure` is nil, otherwise
    /// failed or cancelled, with the text shown before the end as a partial output. Tool calls
    /// found only in the response's items are added as requested.
    func turn(id: UUID, input: [ChappieInputMessage], startedAt: Date, endedAt: Date,
              failure: ChappieThreadTurnFailure?) -> ChappieThreadTurn {
        var calls = toolCalls
        for call in ChappieRuntimeToolCall.requestedCalls(in: response?.items ?? []) where !calls.contains(where: { $0.callID == call.callID }) {
            calls.append(call)
        }
        let status: ChappieThreadTurn.Status =
            if let failure { failure.kind == .cancelled ? .cancelled : .failed } else { .completed }
        let completed = failure == nil ? response : nil
        return ChappieThreadTurn(id: id, input: input, startedAt: startedAt, endedAt: endedAt, status: status,
                                 model: completed?.model, responseID: completed?.id, outputText: completed?.outputText ?? shownText,
                                 reasoningSummary: completed?.reasoningSummary ?? "", items: completed?.items ?? [],
                                 toolCalls: calls, approvals: approvals, usage: response?.usage, failure: failure,
                                 transport: completed?.transport, contextRepair: contextRepair)
    }
}
