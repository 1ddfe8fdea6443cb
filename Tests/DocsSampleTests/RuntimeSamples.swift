import ChappieSDK
import ChappieSDKRuntime
import ChappieSDKTesting
import Foundation
import Testing

// Samples of https://docs.chappiesdk.com/guides/runtime-thread-store, as published. Lines ending
// in `// +test` are not in the docs; lines with `// docs:` differ from them, saying why.

/// "Basic Setup".
func runtimeBasicSetup(folder: URL) async throws -> (String, [ChappieThreadSummary], ChappieThreadStoreUsage) {
    let store = ChappieFileThreadStore(directory: folder)  // docs: `ChappieFileThreadStore()`; a test writes to its own folder
    let runtime = Chappie.client().runtime(store: store)

    let reply = try await runtime.send("Summarize this project.")
    let threads = try await runtime.listThreads()
    let usage = try await store.usage()
    return (reply, threads, usage)  // +test
}

@Suite("Published docs: Runtime thread store")
struct RuntimeSampleTests {
    @Test("the runtime stores the turn before send returns, lists the thread and reports the bytes used")
    func basicSetup() async throws {
        try await DocsEnvironment.run { docs in
            await docs.emulator.scriptReplies(.text("It is an SDK."))
            let (reply, threads, usage) = try await runtimeBasicSetup(folder: docs.folder)
            #expect(reply == "It is an SDK.")
            #expect(threads.count == 1)
            #expect(usage.bytesUsed > 0)
            // A new store on the same folder (the next launch) finds the thread and its turn.
            let thread = try await ChappieFileThreadStore(directory: docs.folder).thread(id: try #require(threads.first).id)
            #expect(thread.turns.map(\.status) == [.completed])
        }
    }

    @Test("the in-memory store works the same way, for tests")
    func inMemory() async throws {
        try await DocsEnvironment.run { docs in
            await docs.emulator.scriptReplies(.text("Hi!"))
            let runtime = Chappie.client().runtime(store: ChappieInMemoryThreadStore())
            let reply = try await runtime.send("Hello")
            let threads = try await runtime.listThreads()
            #expect(reply == "Hi!")
            #expect(threads.count == 1)
        }
    }
}
