import ChappieSDK
import ChappieSDKRuntime
import Foundation

/// Sizes and times of `ChappieFileThreadStore` at the scales DESIGN §8 names: one more turn on a
/// 10, 1,000 and 10,000-message thread (must stay flat), loading the 10,000-message thread in a
/// fresh store, and listing 1,000 threads from the index. Each figure is measured in a fresh
/// folder; a turn is appended the way `ChappieRuntime` stores one (the new user and assistant
/// messages plus a turn record, through `appendTurn(_:transcriptItems:model:contextUpdatedAt:to:expectedTurnCount:)`).
enum ThreadStoreBench {
    /// Turns appended per thread size; the per-turn figures are their mean and median.
    static let appendedTurns = 30

    static func run() async throws -> [String: Any] {
        let folder = FileManager.default.temporaryDirectory.appending(path: "chappie-bench-threads-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        var results: [String: Any] = [:]

        let longFolder = folder.appending(path: "long")
        let long = thread(title: "long", messages: 10_000)
        let store = ChappieFileThreadStore(directory: longFolder)
        let saveSeconds = try await seconds { _ = try await store.save(long) }
        var loadedCount = 0
        let loadSeconds = try await seconds {
            loadedCount = try await ChappieFileThreadStore(directory: longFolder).thread(id: long.id).context.messageCount
        }
        let appendSeconds = try await seconds {
            _ = try await store.update(id: long.id) { $0.title = "long, renamed" }
        }
        let longTurns = try await appendTurns(to: long.id, in: store)
        var loadedAfterTurns = 0
        let loadAfterTurnsSeconds = try await seconds {
            loadedAfterTurns = try await ChappieFileThreadStore(directory: longFolder).thread(id: long.id).context.messageCount
        }
        results["ten_thousand_messages"] = [
            "messages": loadedCount, "file_bytes": try await store.usage().bytesUsed,
            "save_seconds": saveSeconds, "load_seconds": loadSeconds, "update_seconds": appendSeconds,
            "load_after_turns_seconds": loadAfterTurnsSeconds, "messages_after_turns": loadedAfterTurns,
        ]

        var perTurn: [String: Any] = ["turns_appended": appendedTurns, "ten_thousand_messages": longTurns.json]
        for (key, count) in [("ten_messages", 10), ("thousand_messages", 1_000)] {
            let sized = thread(title: key, messages: count)
            let sizedStore = ChappieFileThreadStore(directory: folder.appending(path: key))
            try await sizedStore.save(sized)
            _ = try await sizedStore.thread(id: sized.id)
            perTurn[key] = try await appendTurns(to: sized.id, in: sizedStore).json
        }
        if let small = (perTurn["ten_messages"] as? [String: Double])?["mean_seconds"], small > 0 {
            perTurn["ratio_ten_thousand_to_ten"] = longTurns.mean / small
        }
        results["one_more_turn"] = perTurn

        let manyFolder = folder.appending(path: "many")
        let many = ChappieFileThreadStore(directory: manyFolder)
        let writeSeconds = try await seconds {
            for index in 0..<1_000 { _ = try await many.save(thread(title: "thread \(index)", messages: 4)) }
        }
        var listed = 0
        let listSeconds = try await seconds {
            listed = try await ChappieFileThreadStore(directory: manyFolder).threads(includingArchived: true).count
        }
        results["thousand_threads"] = [
            "threads": listed, "folder_bytes": try await many.usage().bytesUsed,
            "write_all_seconds": writeSeconds, "list_seconds_fresh_store": listSeconds,
        ]
        results["realistic_thread"] = try await realisticThread(in: folder.appending(path: "realistic"))
        return results
    }

    /// Turns in the realistic thread.
    static let realisticTurns = 50

    /// Bytes on disk of a realistic conversation: ``realisticTurns`` turns stored the way the
    /// runtime stores them (each a user question, a reasoning item, a reply of about 2 KB; every
    /// fifth turn reads a file with a tool first), measured as the journal leaves them and after
    /// the thread is saved whole as one snapshot; and the time a fresh store takes to load it.
    private static func realisticThread(in folder: URL) async throws -> [String: Any] {
        let store = ChappieFileThreadStore(directory: folder)
        let start = Date()
        var thread = try await store.save(ChappieThread(title: "realistic", context: ChappieClientContext(
            sessionID: UUID().uuidString.lowercased(), threadID: UUID().uuidString.lowercased(), model: "gpt-5.5", transcript: [],
            compactedSummary: nil, createdAt: start, updatedAt: start), createdAt: start))
        var replyBytes = 0
        for index in 0..<realisticTurns {
            let (turn, items) = realisticTurn(index, at: start.addingTimeInterval(Double(index) * 30))
            replyBytes += turn.outputText.utf8.count
            thread = try await store.appendTurn(turn, transcriptItems: items, model: "gpt-5.5", contextUpdatedAt: turn.endedAt,
                                                to: thread.id, expectedTurnCount: index)
        }
        let journaled = try await store.usage().bytesUsed
        var loaded = 0
        let loadSeconds = try await seconds {
            loaded = try await ChappieFileThreadStore(directory: folder).thread(id: thread.id).turns.count
        }
        try await store.save(thread)
        let snapshot = try await store.usage().bytesUsed
        return ["turns": loaded, "reply_bytes": replyBytes, "bytes_after_turns": journaled, "bytes_as_one_snapshot": snapshot,
                "load_seconds_fresh_store": loadSeconds]
    }

    /// Turn `index` of the realistic thread and the transcript items it adds, as the runtime makes them.
    private static func realisticTurn(_ index: Int, at date: Date) -> (ChappieThreadTurn, [ChappieTranscriptItem]) {
        let question = ChappieInputMessage.user("Question \(index): how should the warehouse handle the late delivery of SKU C\(index)?")
        let reply = (0..<24).map { "Sentence \($0) of answer \(index) explains one more step of the plan in plain words." }
            .joined(separator: " ")
        let reasoning: ChappieJSONValue = [
            "type": "reasoning", "id": .string("rs_bench_\(index)"),
            "summary": [["type": "summary_text", "text": .string("Weighing options for SKU C\(index)")]],
            "encrypted_content": .string(String(repeating: "opaque\(index % 10)", count: 150)),
        ]
        let message: ChappieJSONValue = [
            "type": "message", "id": .string("msg_bench_\(index)"), "status": "completed", "role": "assistant",
            "content": [["type": "output_text", "annotations": [], "text": .string(reply)]],
        ]
        var transcript: [ChappieTranscriptItem] = [.message(question), .reasoning(reasoning)]
        var calls: [ChappieRuntimeToolCall] = []
        if index.isMultiple(of: 5) {
            let call = ChappieRuntimeToolCall(callID: "call_bench_\(index)", name: "read_file",
                                              arguments: #"{"path":"stock/\#(index).csv"}"#, status: .completed, output: String(repeating: "C\(index),12,aisle 4\n", count: 50),
                                              duration: .milliseconds(15))
            calls.append(call)
            transcript += [.functionCall(ChappieFunctionCall(callID: call.callID, name: call.name, arguments: call.arguments)),
                           .functionCallOutput(callID: call.callID, output: call.output ?? "")]
        }
        transcript.append(.message(.assistant(reply)))
        let turn = ChappieThreadTurn(input: [question], startedAt: date, endedAt: date.addingTimeInterval(8), status: .completed,
                                     model: "gpt-5.5", responseID: "resp_bench_\(index)", outputText: reply,
                                     reasoningSummary: "Weighing options for SKU C\(index)", items: [reasoning, message],
                                     toolCalls: calls, usage: ChappieTokenUsage(inputTokens: 900 + index * 700, cachedInputTokens: 800,
                                                                                outputTokens: 500, reasoningOutputTokens: 120,
                                                                                totalTokens: 1_400 + index * 700),
                                     transport: .webSocket)
        return (turn, transcript)
    }

    /// Mean and median seconds of one appended turn.
    struct TurnTimes {
        var mean: Double
        var median: Double
        var json: [String: Double] { ["mean_seconds": mean, "median_seconds": median] }
    }

    /// Appends ``appendedTurns`` turns to the thread `id` (already loaded by `store`), timing each.
    private static func appendTurns(to id: UUID, in store: ChappieFileThreadStore) async throws -> TurnTimes {
        var times: [Double] = []
        let turnCount = try await store.thread(id: id).turns.count
        for index in 0..<appendedTurns {
            let question = ChappieInputMessage.user("one more question \(index): how many units of SKU B\(index) are left?")
            let answer = ChappieInputMessage.assistant("one more answer \(index): \(index * 13 % 89) units, in one warehouse.")
            let now = Date()
            let turn = ChappieThreadTurn(input: [question], startedAt: now, endedAt: now, status: .completed, model: "gpt-5.5",
                                         responseID: "resp_bench\(index)", outputText: answer.text,
                                         usage: ChappieTokenUsage(inputTokens: 900, cachedInputTokens: 800, outputTokens: 30,
                                                                  reasoningOutputTokens: 0, totalTokens: 930))
            times.append(try await seconds {
                _ = try await store.appendTurn(turn, transcriptItems: [.message(question), .message(answer)], model: "gpt-5.5",
                                               contextUpdatedAt: now, to: id, expectedTurnCount: turnCount + index)
            })
        }
        let sorted = times.sorted()
        return TurnTimes(mean: times.reduce(0, +) / Double(times.count), median: sorted[sorted.count / 2])
    }

    /// A thread of `count` messages, alternating user and assistant, with one turn record per
    /// exchange, as the runtime would have stored it.
    private static func thread(title: String, messages count: Int) -> ChappieThread {
        let messages = (0..<count).map { index -> ChappieInputMessage in
            index.isMultiple(of: 2) ? .user("question \(index): how many units are left of SKU A\(index)?")
                : .assistant("answer \(index): there are \(index * 7 % 97) units left, in two warehouses.")
        }
        let now = Date()
        let turns = stride(from: 0, to: count - 1, by: 2).map { index in
            ChappieThreadTurn(input: [messages[index]], startedAt: now, endedAt: now, status: .completed, model: "gpt-5.5",
                              responseID: "resp_\(index)", outputText: messages[index + 1].text)
        }
        let context = ChappieClientContext(sessionID: UUID().uuidString, threadID: UUID().uuidString.lowercased(), model: "gpt-5.5",
                                           messages: messages, compactedSummary: nil, createdAt: now, updatedAt: now)
        return ChappieThread(title: title, context: context, createdAt: now, turns: turns)
    }

    private static func seconds(_ body: () async throws -> Void) async throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try await body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
