import ChappieEmulator
import ChappieSDK
import ChappieSDKRuntime
import ChappieSDKTesting
import Foundation
import Testing

/// Signs in to a fresh emulator and runs `body` with a configuration and a temporary folder;
/// the emulator always shuts down.
private func withSignedInEmulator<Result: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (ChappieEmulator, ChappieConfiguration, URL) async throws -> Result
) async throws -> Result {
    try await withTemporaryFolder { folder in
        try await ChappieTestEmulator.with { emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            return try await body(emulator, configuration, folder)
        }
    }
}

/// A client on a virtual clock, as an app would build it after relaunch.
private func makeClient(_ configuration: ChappieConfiguration) -> ChappieClient {
    ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
}

private func fileStore(_ folder: URL) -> ChappieFileThreadStore {
    ChappieFileThreadStore(directory: threadsFolder(in: folder))
}

/// The `input` texts of the emulator's last Responses request: an HTTP POST, or a WebSocket
/// `response.create` frame (the client's first turn on its socket sends the whole input).
private func lastInputTexts(_ emulator: ChappieEmulator) async throws -> [String] {
    let request = try #require(await emulator.recordedRequests().last {
        ($0.method == "POST" || $0.method == "WS") && $0.path.hasSuffix("/codex/responses")
    })
    let input = try #require(try ChappieJSONValue(jsonData: request.body)["input"]?.arrayValue)
    return input.compactMap { $0["content"]?.arrayValue?.first?["text"]?.stringValue }
}

@Suite("Runtime against the emulator")
struct ChappieRuntimeEmulatorTests {
    @Test("send stores the whole turn before it returns")
    func sendPersists() async throws {
        try await withSignedInEmulator { _, configuration, folder in
            // given
            let runtime = makeClient(configuration).runtime(store: fileStore(folder))
            // when
            let reply = try await runtime.send("Hello runtime")
            // then: a fresh store on the folder already has it
            let store = fileStore(folder)
            let summaries = try await store.threads(includingArchived: false)
            #expect(summaries.count == 1)
            let thread = try await store.thread(id: try #require(summaries.first).id)
            #expect(await runtime.currentThreadID == thread.id)
            #expect(thread.title == "Hello runtime")
            #expect(thread.context.messages.map(\.text) == ["Hello runtime", reply])
            let turn = try #require(thread.turns.first)
            #expect(turn.status == .completed)
            #expect(turn.outputText == reply)
            #expect(turn.responseID?.hasPrefix("resp_") == true)
            #expect((turn.usage?.totalTokens ?? 0) > 0)
            #expect(turn.input == [.user("Hello runtime")])
            #expect(thread.totalUsage == turn.usage)
            // one id: the thread's is its conversation's (the prompt cache key)
            #expect(thread.context.threadID == thread.id.uuidString.lowercased())
            await runtime.startNewThread()
            _ = try await runtime.send("a second thread")
            let second = try #require(await runtime.currentThreadID)
            #expect(second != thread.id)
            #expect(try await store.thread(id: second).context.threadID == second.uuidString.lowercased())
        }
    }

    @Test("stream yields normalized events in order and stores the turn before turnCompleted")
    func streamEvents() async throws {
        try await withSignedInEmulator { _, configuration, folder in
            let runtime = makeClient(configuration).runtime(store: fileStore(folder))
            var events: [ChappieRuntimeTurnEvent] = []
            var storedAtCompletion: ChappieThread?
            for try await event in runtime.stream("stream this please") {
                events.append(event)
                if case .turnCompleted = event, let start = events.first, case .turnStarted(let info) = start {
                    storedAtCompletion = try await fileStore(folder).thread(id: info.threadID)
                }
            }
            guard case .turnStarted(let start) = events.first else { Issue.record("first event: \(String(describing: events.first))"); return }
            guard case .turnCompleted(let turn) = events.last else { Issue.record("last event: \(String(describing: events.last))"); return }
            #expect(start.input == [.user("stream this please")])
            #expect(start.turnID == turn.id)
            let deltas = events.compactMap { if case .textDelta(let text) = $0 { text } else { nil } }
            #expect(deltas.count > 1)
            #expect(deltas.joined() == turn.outputText)
            #expect(events.contains { if case .usage(let usage) = $0 { usage == turn.usage } else { false } })
            #expect(events.filter { if case .turnCompleted = $0 { true } else { false } }.count == 1)
            let stored = try #require(storedAtCompletion)
            #expect(stored.id == start.threadID)
            #expect(stored.turns.last == turn)
        }
    }

    @Test("a new store and a new client resume the thread with its context after a restart")
    func resumeAfterRestart() async throws {
        try await withSignedInEmulator { emulator, configuration, folder in
            // given: a conversation stored by a first "process"
            let firstReply = try await makeClient(configuration).runtime(store: fileStore(folder)).send("first question")
            let threadID = try #require(try await fileStore(folder).threads(includingArchived: false).first).id
            // when: everything is rebuilt and the thread resumed
            let runtime = makeClient(configuration).runtime(store: fileStore(folder))
            let resumed = try await runtime.resume(threadID: threadID)
            let secondReply = try await runtime.send("second question")
            // then: the request carried the stored transcript, and the thread grew
            #expect(resumed.context.messages.count == 2)
            #expect(try await lastInputTexts(emulator).suffix(3) == ["first question", firstReply, "second question"])
            let thread = try await fileStore(folder).thread(id: threadID)
            #expect(thread.turns.count == 2)
            #expect(thread.context.messages.map(\.text) == ["first question", firstReply, "second question", secondReply])
            #expect(thread.context.threadID == resumed.context.threadID)
            #expect(try await fileStore(folder).threads(includingArchived: true).count == 1)
        }
    }

    @Test("a thread whose opaque items the server can no longer read goes on after a restart; the turn records the repair")
    func repairedThreadAfterRestart() async throws {
        try await withSignedInEmulator { emulator, configuration, folder in
            // given: a stored thread with a compaction item and encrypted reasoning, then a key change
            let options = ChappieMessageOptions(effort: .high, reasoningSummary: .auto)
            let first = makeClient(configuration).runtime(store: fileStore(folder))
            _ = try await first.send(.user("first question", options: options))
            _ = try await first.compact()
            _ = try await first.send(.user("second question", options: options))
            let threadID = try #require(await first.currentThreadID)
            emulator.rotateContentKey()

            // when: a new process resumes it
            let runtime = makeClient(configuration).runtime(store: fileStore(folder))
            try await runtime.resume(threadID: threadID)
            var events: [ChappieRuntimeTurnEvent] = []
            for try await event in runtime.stream("third question") { events.append(event) }

            // then: the turn completed, with the repair as an event and in its stored record
            guard case .turnCompleted(let turn) = events.last else { Issue.record("last event: \(String(describing: events.last))"); return }
            let repair = try #require(turn.contextRepair)
            #expect(repair.droppedCompactionItems == 1)
            #expect(events.contains { if case .contextRepaired(let event) = $0 { event == repair } else { false } })
            let thread = try await fileStore(folder).thread(id: threadID)
            #expect(thread.turns.last?.contextRepair == repair)
            #expect(thread.turns.dropLast().allSatisfy { $0.contextRepair == nil })
            #expect(!thread.context.transcript.contains { if case .compaction = $0 { true } else { false } })
            #expect(thread.turns.map(\.status) == [.completed, .completed, .completed])
            // and the next turn needs no repair
            let next = try await runtime.send("fourth question")
            #expect(next.contains("fourth question"))
            #expect(try await fileStore(folder).thread(id: threadID).turns.last?.contextRepair == nil)
        }
    }

    @Test("a failed turn is stored with its error, reported as turnFailed, and the stream throws")
    func failedTurnStored() async throws {
        try await withSignedInEmulator { emulator, configuration, folder in
            let runtime = makeClient(configuration).runtime(store: fileStore(folder))
            await emulator.enqueue(.httpError(status: 400, body: #"{"detail":"Unsupported parameter: x"}"#, headers: [:]))
            var events: [ChappieRuntimeTurnEvent] = []
            let error = await #expect(throws: ChappieClientError.self) {
                for try await event in runtime.stream("this fails") { events.append(event) }
            }
            #expect(error == .invalidRequest("Unsupported parameter: x"))
            guard case .turnFailed(let turn) = events.last else { Issue.record("last event: \(String(describing: events.last))"); return }
            #expect(turn.status == .failed)
            #expect(turn.failure?.kind == .client)
            #expect(turn.failure?.message.contains("Unsupported parameter") == true)
            // the thread exists, with the failed turn and an unchanged transcript, and goes on
            let threadID = try #require(await runtime.currentThreadID)
            _ = try await runtime.send("this works")
            let thread = try await fileStore(folder).thread(id: threadID)
            #expect(thread.turns.map(\.status) == [.failed, .completed])
            #expect(thread.context.messages.first?.text == "this works")
        }
    }

    @Test("a turn the consumer abandons is stored as cancelled", .timeLimit(.minutes(1)))
    func cancelledTurnStored() async throws {
        try await withSignedInEmulator { emulator, configuration, folder in
            let runtime = makeClient(configuration).runtime(store: fileStore(folder))
            await emulator.enqueue(.stall)
            var threadID: UUID?
            for try await event in runtime.stream("never answered") {
                if case .turnStarted(let start) = event { threadID = start.threadID; break }
            }
            // resume waits for the abandoned turn to be stored
            let thread = try await runtime.resume(threadID: try #require(threadID))
            #expect(thread.turns.map(\.status) == [.cancelled])
            #expect(thread.turns.first?.failure?.kind == .cancelled)
        }
    }

    @Test("text shown before a turn failed is stored as its partial output, and stays in the transcript")
    func partialTurnStored() async throws {
        try await withSignedInEmulator { emulator, configuration, folder in
            let runtime = makeClient(configuration).runtime(store: fileStore(folder))
            // Over the WebSocket a cut is retried; every attempt is cut after the same text.
            for _ in 0..<9 {
                await emulator.enqueue(.cut(.text("alpha beta gamma delta epsilon zeta"), afterEvents: 7, ending: .close))
            }
            var shown = ""
            await #expect(throws: ChappieClientError.self) {
                for try await event in runtime.stream("tell me") { if case .textDelta(let text) = event { shown += text } }
            }
            let threadID = try #require(await runtime.currentThreadID)
            let thread = try await fileStore(folder).thread(id: threadID)
            let turn = try #require(thread.turns.first)
            #expect(turn.status == .failed)
            #expect(turn.isPartial)
            #expect(!shown.isEmpty && turn.outputText == shown)
            let partial = try #require(thread.context.messages.last)
            #expect(partial.role == .assistant && partial.isPartial && partial.text == shown)
        }
    }

    @Test("threads can be listed, archived, unarchived, renamed and deleted through the runtime")
    func threadManagement() async throws {
        try await withSignedInEmulator { _, configuration, folder in
            let client = makeClient(configuration)
            let runtime = client.runtime(store: fileStore(folder))
            _ = try await runtime.send("one")
            let first = try #require(await runtime.currentThreadID)
            await runtime.startNewThread()
            #expect(await runtime.currentThreadID == nil)
            _ = try await runtime.send("two")
            let second = try #require(await runtime.currentThreadID)
            #expect(first != second)
            #expect(try await runtime.listThreads().map(\.id) == [second, first])
            try await runtime.archive(threadID: second)
            #expect(try await runtime.listThreads().map(\.id) == [first])
            #expect(try await runtime.listThreads(includingArchived: true).count == 2)
            try await runtime.unarchive(threadID: second)
            #expect(Set(try await runtime.listThreads().map(\.id)) == [first, second])
            #expect(try await runtime.rename(threadID: first, title: "renamed").title == "renamed")
            // archiving does not stop the current thread from growing
            try await runtime.archive(threadID: second)
            _ = try await runtime.send("three")
            #expect(try await runtime.thread(id: second).turns.count == 2)
            // deleting the current thread starts a new conversation
            try await runtime.delete(threadID: second)
            #expect(await runtime.currentThreadID == nil)
            #expect(await client.context().messages.isEmpty)
            #expect(try await runtime.listThreads(includingArchived: true).map(\.id) == [first])
            let usage = try await runtime.usage()
            #expect(usage.threadCount == 1)
            #expect(usage.byteCap == ChappieFileThreadStoreStoragePolicy.defaultByteCap)
            #expect(await runtime.storeIssues().isEmpty)
        }
    }

    @Test("compaction is applied to the client and stored in the thread")
    func compaction() async throws {
        try await withSignedInEmulator { emulator, configuration, folder in
            let runtime = makeClient(configuration).runtime(store: fileStore(folder))
            await #expect(throws: ChappieRuntimeError.noCurrentThread) { try await runtime.compact(summary: "nothing yet") }
            _ = try await runtime.send("one")
            _ = try await runtime.send("two")
            let thread = try await runtime.compact(summary: "We said one and two.", keepingLast: 1)
            #expect(thread.compactions.map(\.summary) == ["We said one and two."])
            #expect(thread.compactions.first?.messagesBefore == 4)
            #expect(thread.compactions.first?.messagesAfter == 1)
            #expect(thread.context.compactedSummary == "We said one and two.")
            _ = try await runtime.send("three")
            #expect(try await lastInputTexts(emulator).contains("We said one and two."))
        }
    }

    @Test("a turn added elsewhere is never overwritten: the stale runtime gets threadChangedElsewhere")
    func concurrentRuntimes() async throws {
        try await withSignedInEmulator { _, configuration, folder in
            let first = makeClient(configuration).runtime(store: fileStore(folder))
            _ = try await first.send("from the first runtime")
            let threadID = try #require(await first.currentThreadID)
            let second = makeClient(configuration).runtime(store: fileStore(folder))
            try await second.resume(threadID: threadID)
            _ = try await second.send("from the second runtime")
            await #expect(throws: ChappieThreadStoreError.threadChangedElsewhere(threadID)) {
                try await first.send("stale")
            }
            let thread = try await fileStore(folder).thread(id: threadID)
            #expect(thread.turns.map { $0.input.first?.text } == ["from the first runtime", "from the second runtime"])
            // resuming brings the stale runtime up to date
            try await first.resume(threadID: threadID)
            _ = try await first.send("fresh")
            #expect(try await fileStore(folder).thread(id: threadID).turns.count == 3)
        }
    }

    @Test("the in-memory store records turns the same way")
    func inMemoryStore() async throws {
        try await withSignedInEmulator { _, configuration, _ in
            let store = ChappieInMemoryThreadStore()
            let runtime = makeClient(configuration).runtime(store: store)
            let reply = try await runtime.send("remember me")
            let thread = try await store.thread(id: try #require(await runtime.currentThreadID))
            #expect(thread.turns.first?.outputText == reply)
            #expect(try await store.usage().bytesUsed > 0)
        }
    }
}
