@_spi(ChappieTesting) import ChappieSDKRuntime
import ChappieSDK
import Foundation

/// A thread built the way ``ChappieRuntime`` stores one, step by step and deterministically (fixed
/// ids and dates): the format 2 files in `Fixtures/format2` were written from it by the SDK that
/// wrote format 2, and the migration tests rebuild the expected thread from it. The files are
/// not written again, so the steps must not change: a changed step makes the tests expect a
/// thread the files do not hold.
enum ThreadFormatFixture {
    /// The thread's id (also the prompt cache key of its context).
    static let threadID = UUID(uuidString: "5a7c3e10-8b2d-4f61-9c0e-2d4b6a8f1e01")!
    static let start = Date(timeIntervalSinceReferenceDate: 786_000_000.25)

    /// One turn as the runtime records it, with the transcript items it added.
    struct Step {
        var turn: ChappieThreadTurn
        var transcriptItems: [ChappieTranscriptItem]
        var contextUpdatedAt: Date
    }

    static func turnID(_ number: Int) -> UUID {
        UUID(uuidString: String(format: "5a7c3e10-0000-4000-8000-%012d", number))!
    }

    static func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    /// A reply of about `words` words, unique to turn `number`.
    static func reply(_ number: Int, words: Int = 40) -> String {
        "Answer \(number): " + (0..<words).map { "word\(number)x\($0)" }.joined(separator: " ") + " — é 🧵 \"q\"\n."
    }

    static func reasoningItem(_ number: Int) -> ChappieJSONValue {
        ["type": "reasoning", "id": .string("rs_fixture_\(number)"),
         "summary": [["type": "summary_text", "text": .string("Thinking about \(number)")]],
         "encrypted_content": .string("opaque-fixture-reasoning-\(number)")]
    }

    static func messageItem(_ text: String, number: Int, annotations: [ChappieJSONValue] = []) -> ChappieJSONValue {
        ["type": "message", "id": .string("msg_fixture_\(number)"), "status": "completed", "role": "assistant",
         "content": [["type": "output_text", "annotations": .array(annotations), "text": .string(text)]]]
    }

    /// A completed turn: reasoning, then the reply.
    static func plain(_ number: Int, question: String) -> Step {
        let text = reply(number)
        let items = [reasoningItem(number), messageItem(text, number: number)]
        let usage = ChappieTokenUsage(inputTokens: 100 * number, cachedInputTokens: 50, outputTokens: 80, reasoningOutputTokens: 12,
                                      totalTokens: 100 * number + 80)
        let turn = ChappieThreadTurn(id: turnID(number), input: [.user(question)], startedAt: at(Double(number) * 10),
                                     endedAt: at(Double(number) * 10 + 3), status: .completed, model: "gpt-5.5",
                                     responseID: "resp_fixture_\(number)", outputText: text, reasoningSummary: "Thinking about \(number)",
                                     items: items, usage: usage, transport: .httpSSE)
        return Step(turn: turn, transcriptItems: [.message(.user(question)), .reasoning(items[0]), .message(.assistant(text))],
                    contextUpdatedAt: at(Double(number) * 10 + 3.5))
    }

    /// A completed turn with one tool round: the call and its output are in the transcript, the
    /// final response's items in the turn.
    static func withTool(_ number: Int, question: String) -> Step {
        let callID = "call_fixture_\(number)"
        let output = "contents of notes/\(number).txt: " + String(repeating: "line \(number)\n", count: 5)
        let text = reply(number)
        let items = [messageItem(text, number: number)]
        let toolCall = ChappieRuntimeToolCall(callID: callID, name: "read_file", arguments: #"{"path":"notes/\#(number).txt"}"#,
                                              status: .completed, output: output, duration: .milliseconds(42))
        let turn = ChappieThreadTurn(id: turnID(number), input: [.user(question)], startedAt: at(Double(number) * 10),
                                     endedAt: at(Double(number) * 10 + 5), status: .completed, model: "gpt-5.5",
                                     responseID: "resp_fixture_\(number)", outputText: text, items: items, toolCalls: [toolCall],
                                     usage: ChappieTokenUsage(inputTokens: 400, cachedInputTokens: 0, outputTokens: 90,
                                                              reasoningOutputTokens: 0, totalTokens: 490), transport: .webSocket)
        let transcript: [ChappieTranscriptItem] = [
            .message(.user(question)), .reasoning(reasoningItem(number)),
            .functionCall(ChappieFunctionCall(callID: callID, name: "read_file", arguments: #"{"path":"notes/\#(number).txt"}"#)),
            .functionCallOutput(callID: callID, output: output), .message(.assistant(text)),
        ]
        return Step(turn: turn, transcriptItems: transcript, contextUpdatedAt: at(Double(number) * 10 + 5.5))
    }

    /// A turn that failed after some text was shown: the transcript keeps the partial reply.
    static func failedPartway(_ number: Int, question: String) -> Step {
        let shown = "Partial answer \(number) before the failure"
        let failure = ChappieThreadTurnFailure(ChappieClientError.responseFailed(code: "server_error", message: "The server had an error"))
        let turn = ChappieThreadTurn(id: turnID(number), input: [.user(question)], startedAt: at(Double(number) * 10),
                                     endedAt: at(Double(number) * 10 + 2), status: .failed, outputText: shown, failure: failure)
        return Step(turn: turn, transcriptItems: [.message(.user(question)),
                                                  .message(ChappieInputMessage(role: .assistant, text: shown, isPartial: true))],
                    contextUpdatedAt: at(Double(number) * 10 + 2))
    }

    /// A completed turn whose reply cites a page (web search).
    static func citing(_ number: Int, question: String) -> Step {
        let text = "See the page for \(number)."
        let annotation: ChappieJSONValue = ["type": "url_citation", "url": "https://example.com/page", "title": "Example page",
                                            "start_index": 4, "end_index": 8]
        let items = [messageItem(text, number: number, annotations: [annotation])]
        var message = ChappieInputMessage.assistant(text)
        message.citations = [ChappieURLCitation(url: "https://example.com/page", title: "Example page", startIndex: 4, endIndex: 8)]
        let turn = ChappieThreadTurn(id: turnID(number), input: [.user(question)], startedAt: at(Double(number) * 10),
                                     endedAt: at(Double(number) * 10 + 1), status: .completed, model: "gpt-5.5",
                                     responseID: "resp_fixture_\(number)", outputText: text, items: items, transport: .httpSSE)
        return Step(turn: turn, transcriptItems: [.message(.user(question)), .message(message)],
                    contextUpdatedAt: at(Double(number) * 10 + 1))
    }

    /// The thread's first turn, as the runtime saves a new thread.
    static func newThread(_ step: Step) -> ChappieThread {
        let context = ChappieClientContext(sessionID: "5a7c3e10-aaaa-4bbb-8ccc-000000000000", threadID: threadID.uuidString.lowercased(),
                                           model: "gpt-5.5", transcript: step.transcriptItems, compactedSummary: nil,
                                           createdAt: at(-1), updatedAt: step.contextUpdatedAt)
        var thread = ChappieThread(id: threadID, title: "Fixture thread", context: context, createdAt: step.turn.startedAt,
                                   turns: [step.turn])
        thread.updatedAt = step.turn.endedAt
        return thread
    }

    /// Turn 3 ran after the server dropped the opaque items: the runtime stores the repaired
    /// transcript whole (an update), with the turn's own items.
    static func repaired(_ thread: inout ChappieThread, _ step: Step) {
        thread.context.transcript.removeAll { if case .reasoning = $0 { true } else { false } }
        thread.context.transcript += step.transcriptItems
        thread.context.updatedAt = step.contextUpdatedAt
        thread.turns.append(step.turn)
        thread.updatedAt = step.turn.endedAt
    }

    /// `ChappieRuntime.compact(summary:keepingLast: 2)`: the summary replaces all but the last two messages.
    static func compacted(_ thread: inout ChappieThread) {
        let before = thread.context.messageCount
        let kept = Array(thread.context.transcript.filter { $0.message != nil }.suffix(2))
        thread.context.transcript = kept
        thread.context.compactedSummary = "Summary of the first turns: files were read and questions answered."
        thread.context.updatedAt = at(45)
        thread.compactions = [ChappieThreadCompaction(summary: "Summary of the first turns: files were read and questions answered.",
                                                      createdAt: at(45), messagesBefore: before, messagesAfter: kept.count)]
        thread.updatedAt = at(45)
    }

    /// The steps in order: `.save` of turn 1, journal turns, a repair, a compaction, a journal tail.
    enum Write {
        case save(ChappieThread)
        case append(Step)
        case repair(Step)
        case compact
    }

    static var writes: [Write] {
        var repairedTurn = plain(3, question: "Third: after the repair")
        repairedTurn.turn.contextRepair = ChappieContextRepair(droppedReasoningItems: 2, droppedCompactionItems: 0)
        return [
            .save(newThread(plain(1, question: "First question"))),
            .append(withTool(2, question: "Second: read my notes")),
            .repair(repairedTurn),
            .append(plain(4, question: "Fourth question")),
            .compact,
            .append(withTool(5, question: "Fifth: read more notes")),
            .append(failedPartway(6, question: "Sixth question")),
            .append(citing(7, question: "Seventh: search the web")),
            .append(plain(8, question: "Eighth question")),
        ]
    }

    /// Runs `writes` against `store` the way the runtime does; returns the last stored thread.
    @discardableResult
    static func write(_ writes: [Write], to store: ChappieFileThreadStore) async throws -> ChappieThread {
        var stored: ChappieThread?
        for write in writes {
            switch write {
            case .save(let thread):
                stored = try await store.save(thread)
            case .append(let step):
                let current = try required(stored)
                stored = try await store.appendTurn(step.turn, transcriptItems: step.transcriptItems, model: "gpt-5.5",
                                                    contextUpdatedAt: step.contextUpdatedAt, to: current.id,
                                                    expectedTurnCount: current.turns.count)
            case .repair(let step):
                stored = try await store.update(id: threadID) { repaired(&$0, step) }
            case .compact:
                stored = try await store.update(id: threadID) { compacted(&$0) }
            }
        }
        return try required(stored)
    }

    /// The thread `writes` make, built in memory without a store: what reading their files must give.
    static func expected(_ writes: [Write]) -> ChappieThread {
        var thread: ChappieThread?
        for write in writes {
            switch write {
            case .save(let first):
                thread = first
            case .append(let step):
                thread?.addTurnForTests(step)
            case .repair(let step):
                thread.map { var copy = $0; repaired(&copy, step); thread = copy }
            case .compact:
                thread.map { var copy = $0; compacted(&copy); thread = copy }
            }
            thread?.revision += 1
        }
        return thread!
    }
}

extension ChappieThread {
    /// What ``ChappieFileThreadStore/appendTurn(_:transcriptItems:model:contextUpdatedAt:to:expectedTurnCount:)`` adds.
    mutating func addTurnForTests(_ step: ThreadFormatFixture.Step) {
        context.transcript += step.transcriptItems
        context.model = "gpt-5.5"
        context.updatedAt = step.contextUpdatedAt
        model = "gpt-5.5"
        turns.append(step.turn)
        updatedAt = step.turn.endedAt
    }
}

/// Thrown by ``required(_:)``.
struct MissingValue: Error {}

/// `value`, or a thrown ``MissingValue`` when it is nil.
func required<Value>(_ value: Value?) throws -> Value {
    guard let value else { throw MissingValue() }
    return value
}
