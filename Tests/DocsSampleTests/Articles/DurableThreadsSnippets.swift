import ChappieSDK
import ChappieSDKRuntime
import ChappieSDKTesting
import Foundation
import Testing

// The code of the DocC article "Durable threads" (Sources/ChappieSDKRuntime/ChappieSDKRuntime.docc),
// compiled and run here; CatalogSnippetTests checks that each of the article's blocks appears here.

func durableThreadsDefaultStore(configuration: ChappieConfiguration) -> ChappieRuntime {
    let store = ChappieFileThreadStore()  // Application Support/Chappie/Threads, or $XDG_DATA_HOME/chappie/threads
    let runtime = Chappie.client(configuration: configuration).runtime(store: store)
    return runtime  // +test
}

func durableThreadsTurn(runtime: ChappieRuntime) async throws {
    for try await event in runtime.stream("Plan my week") {
        switch event {
        case .turnStarted(let start): print("thread", start.threadID)
        case .textDelta(let text): print(text, terminator: "")
        case .turnCompleted(let turn): print("\nsaved turn", turn.id, turn.status)
        case .turnFailed(let turn): print("\nsaved failed turn", turn.failure?.message ?? "")
        default: break
        }
    }
}

func durableThreadsNextLaunch(runtime: ChappieRuntime) async throws {
    let threads = try await runtime.listThreads()  // newest first, archived ones left out
    if let latest = threads.first {
        _ = try await runtime.resume(threadID: latest.id)  // the client adopts the thread's context
    }
}

func durableThreadsOwnPolicy(folder: URL) -> ChappieFileThreadStore {
    let store = ChappieFileThreadStore(
        directory: folder,
        storagePolicy: ChappieFileThreadStoreStoragePolicy(
            fileProtection: .completeUntilFirstUserAuthentication,  // saves in the background too
            byteCap: 64 << 20),
        redactor: .credentials.then(.replacing(["ACME-INTERNAL-KEY"])))
    return store  // +test
}

@Suite("DocC articles: Durable threads")
struct DurableThreadsSnippetTests {
    @Test("a streamed turn is saved; the next launch resumes the thread with its context")
    func turnAndResume() async throws {
        try await DocsEnvironment.run { docs in
            let store = durableThreadsOwnPolicy(folder: docs.folder)
            await docs.emulator.scriptReplies(.text("Monday: gym."))
            try await durableThreadsTurn(runtime: Chappie.client().runtime(store: store))
            #expect(docs.output.text.contains("Monday: gym.\nsaved turn"))
            #expect(docs.output.text.hasSuffix(" completed\n"))
            let next = Chappie.client().runtime(store: durableThreadsOwnPolicy(folder: docs.folder))
            try await durableThreadsNextLaunch(runtime: next)
            #expect(await next.currentThreadID != nil)
            #expect(await next.client.context().messages.map(\.text) == ["Plan my week", "Monday: gym."])
        }
    }

    @Test("the redactor runs before anything is written")
    func redaction() async throws {
        try await DocsEnvironment.run { docs in
            let store = durableThreadsOwnPolicy(folder: docs.folder)
            await docs.emulator.scriptReplies(.text("Stored."))
            _ = try await Chappie.client().runtime(store: store).send("My key is ACME-INTERNAL-KEY")
            let id = try #require(try await store.threads(includingArchived: true).first).id
            #expect(try await store.thread(id: id).messages.first?.text == "My key is [redacted]")
        }
    }
}
