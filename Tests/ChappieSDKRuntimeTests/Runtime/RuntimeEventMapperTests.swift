@testable import ChappieCore
import Foundation
import Testing
@testable import ChappieSDKRuntime

@Suite("Runtime events and turn records")
struct RuntimeEventMapperTests {
    private static let usage = ChappieTokenUsage(inputTokens: 5, cachedInputTokens: 0, outputTokens: 3, reasoningOutputTokens: 0, totalTokens: 8)
    private static let context = ChappieClientContext(sessionID: "s", threadID: "t", model: "gpt-5.5", transcript: [], compactedSummary: nil,
                                                      createdAt: Date(), updatedAt: Date())

    @Test("client stream events map to runtime events, and completion carries usage")
    func mapsStreamEvents() {
        let mapper = RuntimeEventMapper()
        #expect(mapper.events(for: .textDelta("Hi")) == [.textDelta("Hi")])
        #expect(mapper.events(for: .reasoningSummaryDelta("hm")) == [.reasoningSummaryDelta("hm")])
        let response = ChappieResponse(id: "resp_1", model: "gpt-5.5", outputText: "Hi", usage: Self.usage, items: [])
        #expect(mapper.events(for: .completed(response)) == [.usage(Self.usage)])
    }

    @Test("an approval's decision comes again, settled, right before its call's result")
    func approvalPairing() {
        let mapper = RuntimeEventMapper()
        let call = ChappieToolCall(name: "rm", callID: "call_2", rawArguments: "{}")
        let pending = ChappieRuntimeApproval(callID: "call_2", toolName: "rm", arguments: "{}")
        #expect(mapper.events(for: .approvalRequested(ChappieApprovalRequest(call: call, toolDescription: "Removes"))) == [.approvalRequested(pending)])
        let denied = ChappieToolExecutionResult(call: call, status: .denied, output: "no", duration: 0.25)
        var settled = pending
        settled.decision = .denied
        settled.reason = "no"
        #expect(mapper.events(for: .toolCallCompleted(denied)) == [.approvalRequested(settled), .toolCallCompleted(ChappieRuntimeToolCall(denied))])
        // Settled once: a later result of the same id carries no second decision.
        #expect(mapper.events(for: .toolCallCompleted(denied)) == [.toolCallCompleted(ChappieRuntimeToolCall(denied))])
    }

    @Test("a record's tool calls become call and approval records; calls only in the response items are added as requested")
    func toolCalls() {
        let lookup = ChappieToolCall(name: "lookup", callID: "call_1", rawArguments: "{}")
        let remove = ChappieToolCall(name: "rm", callID: "call_2", rawArguments: "{}")
        let done = ChappieToolExecutionResult(call: lookup, status: .completed, output: "42", duration: 0)
        let items: [ChappieJSONValue] = [
            ["type": "function_call", "call_id": "call_1", "name": "lookup", "arguments": "{}"],
            ["type": "function_call", "call_id": "call_3", "name": "later", "arguments": "{}"],
        ]
        var record = ConversationTurnRecord(input: [], baseRevision: 0, context: Self.context)
        record.toolCalls = [.init(call: lookup, result: done), .init(call: remove, askedForApproval: true)]
        record.response = ChappieResponse(id: "resp_2", model: nil, outputText: "", usage: nil, items: items)
        let turn = ChappieThreadTurn(record, id: UUID(), startedAt: Date(), endedAt: Date(), failure: nil)
        #expect(turn.toolCalls.map(\.callID) == ["call_1", "call_2", "call_3"])
        #expect(turn.toolCalls[0] == ChappieRuntimeToolCall(done))
        #expect(turn.toolCalls[1].status == .requested)
        #expect(turn.approvals == [ChappieRuntimeApproval(callID: "call_2", toolName: "rm", arguments: "{}")])
        #expect(turn.items == items)
    }

    @Test("a failure makes the turn failed or cancelled and keeps the text shown as its partial output")
    func failures() {
        var record = ConversationTurnRecord(input: [], baseRevision: 0, context: Self.context)
        record.shownText = "partial"
        let failed = ChappieThreadTurn(record, id: UUID(), startedAt: Date(), endedAt: Date(),
                                       failure: ChappieThreadTurnFailure(ChappieClientError.streamEndedBeforeCompletion))
        #expect(failed.status == .failed)
        #expect(failed.outputText == "partial")
        #expect(failed.isPartial)
        #expect(failed.responseID == nil)
        let cancelled = ChappieThreadTurn(record, id: UUID(), startedAt: Date(), endedAt: Date(), failure: ChappieThreadTurnFailure(CancellationError()))
        #expect(cancelled.status == .cancelled)
        #expect(cancelled.isPartial)
        let silent = ConversationTurnRecord(input: [], baseRevision: 0, context: Self.context)
        #expect(!ChappieThreadTurn(silent, id: UUID(), startedAt: Date(), endedAt: Date(),
                                   failure: ChappieThreadTurnFailure(CancellationError())).isPartial)
    }
}
