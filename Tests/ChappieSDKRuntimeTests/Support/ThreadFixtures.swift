import ChappieSDK
import ChappieSDKRuntime
import Foundation

/// Threads for store tests.
enum ThreadFixtures {
    /// Text that line-based logs and naive encoders get wrong (FAILURE-CASES 34b).
    static let awkwardText = "a\nb\u{2028}c\u{0000}d\r\n\"quoted\" \\ back\u{2029}slash 🧵 é\u{1B}[31m"

    /// A fixed date with a fractional part, so date precision is checked too.
    static let start = Date(timeIntervalSinceReferenceDate: 786_000_000.123_456)

    /// A thread holding every kind of item the runtime stores: each message role, a compaction
    /// summary, completed/failed/cancelled turns, every output item kind, tool calls in every
    /// status, approvals, usage and failures.
    static func everyItemKind(id: UUID = UUID()) -> ChappieThread {
        let messages: [ChappieInputMessage] = [
            .system("system rules"), .developer("developer note"), .user("first question", fastMode: true),
            .assistant("first answer " + awkwardText), .user(awkwardText), .assistant("calling a tool"),
        ]
        let context = ChappieClientContext(sessionID: UUID().uuidString.lowercased(), threadID: UUID().uuidString.lowercased(),
                                           model: "gpt-5.5", messages: messages, compactedSummary: "summary " + awkwardText,
                                           createdAt: start, updatedAt: start.addingTimeInterval(60.5))
        let usage = ChappieTokenUsage(inputTokens: 120, cachedInputTokens: 20, outputTokens: 33, reasoningOutputTokens: 7, totalTokens: 153)
        let items: [ChappieJSONValue] = [
            ["type": "reasoning", "id": "rs_1", "summary": [["type": "summary_text", "text": .string("thinking " + awkwardText)]]],
            ["type": "message", "role": "assistant", "content": [["type": "output_text", "text": .string(awkwardText)]]],
            ["type": "function_call", "call_id": "call_1", "name": "lookup", "arguments": #"{"q":"a\nb"}"#],
            ["type": "function_call_output", "call_id": "call_1", "output": .string(awkwardText)],
            ["type": "future_item", "number": 1.5, "integer": 42, "flag": true, "nothing": nil, "nested": [[1, 2], ["k": "v"]]],
        ]
        let calls: [ChappieRuntimeToolCall] = [
            ChappieRuntimeToolCall(callID: "call_1", name: "lookup", arguments: #"{"q":"a\nb"}"#, status: .completed,
                                   output: awkwardText, duration: .milliseconds(1234)),
            ChappieRuntimeToolCall(callID: "call_2", name: "write", arguments: "{}", status: .requested),
            ChappieRuntimeToolCall(callID: "call_3", name: "rm", arguments: "{}", status: .denied, output: "denied by user"),
            ChappieRuntimeToolCall(callID: "call_4", name: "slow", arguments: "{", status: .cancelled),
            ChappieRuntimeToolCall(callID: "call_5", name: "boom", arguments: "{}", status: .failed, output: "exit 1"),
            ChappieRuntimeToolCall(callID: "call_6", name: "new", arguments: "{}", status: .init(rawValue: "from_the_future")),
        ]
        let approvals = [
            ChappieRuntimeApproval(callID: "call_3", toolName: "rm", arguments: "{}", decision: .denied, reason: "not today"),
            ChappieRuntimeApproval(callID: "call_2", toolName: "write", arguments: "{}", decision: .approved),
            ChappieRuntimeApproval(callID: "call_7", toolName: "ask", arguments: "{}"),
        ]
        let turns = [
            ChappieThreadTurn(input: [.user("first question", fastMode: true)], startedAt: start, endedAt: start.addingTimeInterval(2),
                              status: .completed, model: "gpt-5.5", responseID: "resp_1", outputText: "first answer",
                              reasoningSummary: "thinking", items: items, toolCalls: calls, approvals: approvals, usage: usage),
            ChappieThreadTurn(input: [.user("second")], startedAt: start.addingTimeInterval(3), endedAt: start.addingTimeInterval(4),
                              status: .failed, failure: ChappieThreadTurnFailure(ChappieClientError.responseFailed(code: "server_error", message: awkwardText))),
            ChappieThreadTurn(input: [.user("third")], startedAt: start.addingTimeInterval(5), endedAt: start.addingTimeInterval(6),
                              status: .cancelled, failure: ChappieThreadTurnFailure(CancellationError())),
            ChappieThreadTurn(input: [.user("fourth")], startedAt: start.addingTimeInterval(7), endedAt: start.addingTimeInterval(8),
                              status: .failed, failure: ChappieThreadTurnFailure(ChappieClientError.missingCredential)),
        ]
        let compactions = [ChappieThreadCompaction(summary: "summary " + awkwardText, createdAt: start.addingTimeInterval(9),
                                                   messagesBefore: 12, messagesAfter: 6)]
        var thread = ChappieThread(id: id, title: "Every item kind " + awkwardText, context: context, createdAt: start,
                                   archived: false, turns: turns, compactions: compactions)
        thread.updatedAt = start.addingTimeInterval(10)
        return thread
    }

    /// A small thread with one exchange.
    static func small(id: UUID = UUID(), title: String = "small", updatedAt: Date = start, archived: Bool = false,
                      text: String = "hello") -> ChappieThread {
        let context = ChappieClientContext(sessionID: "session", threadID: UUID().uuidString.lowercased(), model: "gpt-5.5",
                                           messages: [.user(text), .assistant("reply to \(text)")], compactedSummary: nil,
                                           createdAt: start, updatedAt: updatedAt)
        var thread = ChappieThread(id: id, title: title, context: context, createdAt: start, archived: archived)
        thread.updatedAt = updatedAt
        return thread
    }

    /// A thread whose transcript has `count` messages, alternating user and assistant.
    static func long(messages count: Int, id: UUID = UUID()) -> ChappieThread {
        let messages = (0..<count).map { index -> ChappieInputMessage in
            index.isMultiple(of: 2) ? .user("question \(index) " + awkwardText) : .assistant("answer \(index) with some more words")
        }
        let context = ChappieClientContext(sessionID: "session", threadID: "thread", model: "gpt-5.5", messages: messages,
                                           compactedSummary: nil, createdAt: start, updatedAt: start)
        return ChappieThread(id: id, title: "long", context: context, createdAt: start)
    }
}
