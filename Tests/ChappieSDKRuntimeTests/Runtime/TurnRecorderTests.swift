import ChappieSDK
import Foundation
import Testing
@testable import ChappieSDKRuntime

@Suite("Turn recorder")
struct TurnRecorderTests {
    private static let usage = ChappieTokenUsage(inputTokens: 5, cachedInputTokens: 0, outputTokens: 3, reasoningOutputTokens: 0, totalTokens: 8)

    @Test("client stream events map to runtime events, and completion carries usage")
    func mapsStreamEvents() {
        var recorder = TurnRecorder()
        #expect(recorder.record(.textDelta("Hi")) == [.textDelta("Hi")])
        #expect(recorder.record(.reasoningSummaryDelta("hm")) == [.reasoningSummaryDelta("hm")])
        let response = ChappieResponse(id: "resp_1", model: "gpt-5.5", outputText: "Hi", usage: Self.usage, items: [])
        #expect(recorder.record(.completed(response)) == [.usage(Self.usage)])
        let turn = recorder.turn(id: UUID(), input: [.user("x")], startedAt: Date(), endedAt: Date(), failure: nil)
        #expect(turn.status == .completed)
        #expect(turn.outputText == "Hi")
        #expect(turn.usage == Self.usage)
    }

    @Test("function calls in the response items become tool call records; later states replace earlier ones")
    func toolCalls() {
        var recorder = TurnRecorder()
        let requested = ChappieRuntimeToolCall(callID: "call_1", name: "lookup", arguments: "{}")
        #expect(recorder.record(toolCall: requested) == .toolCallRequested(requested))
        var done = requested
        done.status = .completed
        done.output = "42"
        #expect(recorder.record(toolCall: done) == .toolCallCompleted(done))
        let approval = ChappieRuntimeApproval(callID: "call_2", toolName: "rm", arguments: "{}")
        #expect(recorder.record(approval: approval) == .approvalRequested(approval))
        let items: [ChappieJSONValue] = [
            ["type": "function_call", "call_id": "call_1", "name": "lookup", "arguments": "{}"],
            ["type": "function_call", "call_id": "call_2", "name": "rm", "arguments": "{}"],
        ]
        _ = recorder.record(.completed(ChappieResponse(id: "resp_2", model: nil, outputText: "", usage: nil, items: items)))
        let turn = recorder.turn(id: UUID(), input: [], startedAt: Date(), endedAt: Date(), failure: nil)
        #expect(turn.toolCalls.map(\.callID) == ["call_1", "call_2"])
        #expect(turn.toolCalls[0] == done)
        #expect(turn.toolCalls[1].status == .requested)
        #expect(turn.approvals == [approval])
        #expect(turn.items == items)
    }

    @Test("a failure makes the turn failed or cancelled and keeps the text shown as its partial output")
    func failures() {
        var recorder = TurnRecorder()
        _ = recorder.record(.textDelta("part"))
        _ = recorder.record(.textDelta("ial"))
        let failed = recorder.turn(id: UUID(), input: [], startedAt: Date(), endedAt: Date(),
                                   failure: ChappieThreadTurnFailure(ChappieClientError.streamEndedBeforeCompletion))
        #expect(failed.status == .failed)
        #expect(failed.outputText == "partial")
        #expect(failed.isPartial)
        #expect(failed.responseID == nil)
        let cancelled = recorder.turn(id: UUID(), input: [], startedAt: Date(), endedAt: Date(), failure: ChappieThreadTurnFailure(CancellationError()))
        #expect(cancelled.status == .cancelled)
        #expect(cancelled.isPartial)
        #expect(!TurnRecorder().turn(id: UUID(), input: [], startedAt: Date(), endedAt: Date(),
                                     failure: ChappieThreadTurnFailure(CancellationError())).isPartial)
    }
}
