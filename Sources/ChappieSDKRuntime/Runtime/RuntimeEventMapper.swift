import ChappieSDK
import ChappieTransport
import Foundation

/// Turns the client's events for one turn into runtime events as they happen, from whichever
/// task emits them (tool handlers run concurrently). The only place that knows
/// ``ChappieStreamEvent``; the turn's stored record comes from the client's own turn record.
final class RuntimeEventMapper: Sendable {
    /// Approval requests not yet decided, by call id.
    private let pending = LockedBox<[String: ChappieRuntimeApproval]>([:])

    /// The runtime events for `event`, in order (possibly none).
    func events(for event: ChappieStreamEvent) -> [ChappieRuntimeTurnEvent] {
        switch event {
        case .textDelta(let text):
            return [.textDelta(text)]
        case .reasoningSummaryDelta(let text):
            return [.reasoningSummaryDelta(text)]
        case .webSearch(let call):
            return [.webSearch(call)]
        case .usageLimits(let snapshot):
            return [.usageLimits(snapshot)]
        case .completed(let response):
            return response.usage.map { [.usage($0)] } ?? []
        case .toolCallRequested(let request):
            return [.toolCallRequested(ChappieRuntimeToolCall(request.call, status: .requested))]
        case .toolCallCompleted(let result):
            // A call that waited for approval: its decision first, then the call's result.
            let call = ChappieRuntimeToolCall(result)
            let decided: ChappieRuntimeApproval? = pending.withLock { pending in
                guard var approval = pending.removeValue(forKey: call.callID) else { return nil }
                approval.decide(by: call)
                return approval
            }
            return (decided.map { [.approvalRequested($0)] } ?? []) + [.toolCallCompleted(call)]
        case .contextRepaired(let repair):
            return [.contextRepaired(repair)]
        case .approvalRequested(let request):
            let approval = ChappieRuntimeApproval(callID: request.call.callID, toolName: request.call.name, arguments: request.call.rawArguments)
            pending.withLock { $0[approval.callID] = approval }
            return [.approvalRequested(approval)]
        }
    }
}

extension ChappieRuntimeApproval {
    /// Settles a pending approval by how its call ended: denied (the denial's output as the
    /// reason), or approved (the call ran, failed or was cancelled after it).
    mutating func decide(by call: ChappieRuntimeToolCall) {
        guard call.status != .requested else { return }
        decision = call.status == .denied ? .denied : .approved
        if call.status == .denied { reason = call.output }
    }
}

extension ChappieThreadTurn {
    /// The stored turn for the client's `record`: completed when it has a response and
    /// `failure` is nil, otherwise failed or cancelled, with the text shown before the end as a
    /// partial output.
    init(_ record: ConversationTurnRecord, id: UUID, startedAt: Date, endedAt: Date, failure: ChappieThreadTurnFailure?) {
        var calls: [ChappieRuntimeToolCall] = []
        var approvals: [ChappieRuntimeApproval] = []
        for entry in record.toolCalls {
            let call = entry.result.map(ChappieRuntimeToolCall.init) ?? ChappieRuntimeToolCall(entry.call, status: .requested)
            calls.append(call)
            if entry.askedForApproval {
                var approval = ChappieRuntimeApproval(callID: call.callID, toolName: call.name, arguments: call.arguments)
                approval.decide(by: call)
                approvals.append(approval)
            }
        }
        for call in ChappieRuntimeToolCall.requestedCalls(in: record.response?.items ?? []) where !calls.contains(where: { $0.callID == call.callID }) {
            calls.append(call)
        }
        let status: Status = if let failure { failure.kind == .cancelled ? .cancelled : .failed } else { .completed }
        let completed = failure == nil ? record.response : nil
        self.init(id: id, input: record.input, startedAt: startedAt, endedAt: endedAt, status: status,
                  model: completed?.model, responseID: completed?.id, outputText: completed?.outputText ?? record.shownText,
                  reasoningSummary: completed?.reasoningSummary ?? "", items: completed?.items ?? [],
                  toolCalls: calls, approvals: approvals, usage: record.response?.usage, failure: failure,
                  transport: completed?.transport, contextRepair: record.contextRepair)
    }
}
