@_spi(ChappieTesting) import ChappieSDKRuntime
import ChappieEmulator
import ChappieSDK
import ChappieSDKTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Signs in to a fresh emulator and runs `body` with a client and a temporary folder.
private func withClient<Result: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (ChappieEmulator, ChappieClient, URL) async throws -> Result
) async throws -> Result {
    try await withTemporaryFolder { folder in
        try await ChappieTestEmulator.with { emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            return try await body(emulator, ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource), folder)
        }
    }
}

/// The bytes of every file in the thread folder, by name (the lock and index left out).
private func threadFiles(_ folder: URL) throws -> [String: Data] {
    var files: [String: Data] = [:]
    for url in allFiles(in: threadsFolder(in: folder)) where url.lastPathComponent != ".lock" && url.lastPathComponent != "index.json" {
        files[url.lastPathComponent] = try Data(contentsOf: url)
    }
    return files
}

@Suite("Runtime storage: journal turns, compaction, titles and failed writes")
struct ChappieRuntimeStorageTests {
    @Test("a later turn goes to the journal with only what it added; the snapshot stays as the first turn wrote it")
    func laterTurnsAppend() async throws {
        try await withClient { _, client, folder in
            // given
            let runtime = client.runtime(store: ChappieFileThreadStore(directory: threadsFolder(in: folder)))
            _ = try await runtime.send("first")
            let id = try #require(await runtime.currentThreadID)
            let snapshot = try Data(contentsOf: threadsFolder(in: folder).appending(path: id.uuidString.lowercased() + ".json"))

            // when
            let reply = try await runtime.send("second")

            // then
            #expect(try Data(contentsOf: threadsFolder(in: folder).appending(path: id.uuidString.lowercased() + ".json")) == snapshot)
            let journal = String(decoding: try Data(contentsOf: threadsFolder(in: folder).appending(path: id.uuidString.lowercased() + ".journal")),
                                 as: UTF8.self)
            #expect(journal.contains(#""text":"second""#) && !journal.contains(#""text":"first""#), "the record holds the new items only")
            #expect(journal.filter { $0 == "\n" }.count == 1)
            let thread = try await ChappieFileThreadStore(directory: threadsFolder(in: folder)).thread(id: id)
            #expect(thread.context.messages.map(\.text).suffix(2) == ["second", reply])
            #expect(thread.context == (await client.context()))
        }
    }

    @Test("only the newest compaction is kept, and the thread shows every turn")
    func newestCompactionOnly() async throws {
        try await withClient { _, client, folder in
            let runtime = client.runtime(store: ChappieFileThreadStore(directory: threadsFolder(in: folder)))
            _ = try await runtime.send("one")
            _ = try await runtime.compact()
            _ = try await runtime.send("two")
            let thread = try await runtime.compact()
            #expect(thread.compactions.count == 1)
            #expect(thread.compactions.first?.messagesBefore == 3)
            #expect(thread.context.transcript.filter { if case .compaction = $0 { true } else { false } }.count == 1)
            #expect(thread.turns.map(\.outputText).allSatisfy { !$0.isEmpty } && thread.turns.count == 2)
        }
    }

    @Test("a bad compaction reply is a typed error and leaves the stored thread byte for byte",
          arguments: [ChappieEmulator.ScriptedReply.text("not a compaction"), .compaction(encryptedContent: nil)])
    func badCompactionLeavesThread(reply: ChappieEmulator.ScriptedReply) async throws {
        try await withClient { emulator, client, folder in
            let runtime = client.runtime(store: ChappieFileThreadStore(directory: threadsFolder(in: folder)))
            _ = try await runtime.send("one")
            _ = try await runtime.send("two")
            let before = try threadFiles(folder)
            let context = await client.context()
            await emulator.enqueue(reply)
            await #expect(throws: ChappieClientError.self) { try await runtime.compact() }
            #expect(try threadFiles(folder) == before)
            #expect(await client.context() == context)
        }
    }

    @Test("a full disk: the turn's reply comes, the save fails with ENOSPC, the thread files are intact, and the next turn saves both")
    func fullDisk() async throws {
        try await withClient { _, client, folder in
            // given: a saved thread, and a store whose thread writes fail while `full` is set
            let full = FaultSwitch()
            let store = ChappieFileThreadStore(directory: threadsFolder(in: folder), faults: ChappieThreadStoreFaults { name in
                full.isOn && !name.hasPrefix("index") ? .init(errorNumber: ENOSPC, bytesWritten: 3) : nil
            })
            let runtime = client.runtime(store: store)
            _ = try await runtime.send("saved")
            let before = try threadFiles(folder)

            // when
            full.isOn = true
            var shown = ""
            let error = await #expect(throws: ChappieThreadStoreError.self) {
                for try await event in runtime.stream("lost to a full disk") { if case .textDelta(let text) = event { shown += text } }
            }

            // then
            #expect(shown.contains("lost to a full disk"), "the reply streamed before the save")
            guard case .io(let message) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(message.contains(String(cString: strerror(ENOSPC))))
            #expect(try threadFiles(folder) == before)

            // when: space again
            full.isOn = false
            _ = try await runtime.send("after")

            // then: the unsaved turn's messages are saved with the next turn; nothing is lost
            let thread = try await ChappieFileThreadStore(directory: threadsFolder(in: folder)).thread(id: try #require(await runtime.currentThreadID))
            #expect(thread.context.messages.map(\.text).filter { !$0.hasPrefix("Hello from") } == ["saved", "lost to a full disk", "after"])
        }
    }

    @Test("a secret in the first message never reaches the title, cut or whole", arguments: [
        "here is my key eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.c2lnbmF0dXJl please",
        "use this one and key sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ thanks",
        "my refresh token is rt_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV ok",
    ])
    func titleRedactedBeforeCut(prompt: String) async throws {
        try await withClient { _, client, folder in
            let runtime = client.runtime(store: ChappieFileThreadStore(directory: threadsFolder(in: folder)))
            _ = try await runtime.send(prompt)
            let summary = try #require(try await ChappieFileThreadStore(directory: threadsFolder(in: folder)).threads(includingArchived: true).first)
            for prefix in ["eyJ", "sk-a", "rt_a"] { #expect(!summary.title.contains(prefix), "\(summary.title)") }
            let index = String(decoding: try Data(contentsOf: threadsFolder(in: folder).appending(path: "index.json")), as: UTF8.self)
            for prefix in ["eyJhbGci", "sk-abcdef", "rt_abcdef"] { #expect(!index.contains(prefix)) }
        }
    }
}

/// A switch a fault closure reads from any thread.
private final class FaultSwitch: @unchecked Sendable {
    // Sound: `on` is only read and written while holding `lock`.
    private let lock = NSLock()
    private var on = false

    var isOn: Bool {
        get { lock.lock(); defer { lock.unlock() }; return on }
        set { lock.lock(); on = newValue; lock.unlock() }
    }
}
