@_spi(ChappieTesting) import ChappieSDKRuntime
import ChappieEmulator
import ChappieSDK
import ChappieSDKTesting
import Foundation
import Testing

/// A user message that asks for reasoning with a summary, so the reply carries a reasoning item.
private func reasoning(_ text: String) -> ChappieInputMessage {
    var options = ChappieMessageOptions(reasoningEffort: "high")
    options.reasoningSummary = .auto
    return .user(text, options: options)
}

@Suite("Runtime: threads in format 3 through compaction, context repair and resume")
struct RuntimeThreadFormatTests {
    private static let lookup = ChappieHostTool(name: "lookup", description: "Looks a key up.") { call in
        ChappieToolResult(output: #"{"value":"found \#(call.argumentsJSON?["key"]?.stringValue ?? "?")"}"#)
    }

    @Test("after every step a fresh store reads the thread the runtime stored, and the client's context resumes from it")
    func referencesSurviveEveryStep() async throws {
        try await withTemporaryFolder { folder in
            try await ChappieTestEmulator.with { emulator, configuration in
                try await ChappieTestEmulator.signIn(configuration)
                let client = ChappieClient(configuration: configuration, tools: [Self.lookup], timeSource: ChappieVirtualTime().timeSource)
                let runtime = client.runtime(store: ChappieFileThreadStore(directory: threadsFolder(in: folder)))

                /// The thread as a fresh store reads it equals the runtime's, and holds the client's context.
                func check(_ step: String) async throws {
                    let id = try #require(await runtime.currentThreadID)
                    let fresh = try await ChappieFileThreadStore(directory: threadsFolder(in: folder)).thread(id: id)
                    #expect(fresh == (try await runtime.thread(id: id)), "after \(step)")
                    #expect(fresh.context == (await client.context()), "after \(step)")
                    #expect(fresh.formatVersion == ChappieThread.currentFormatVersion, "after \(step)")
                }

                // a turn with reasoning, a tool turn, a compaction, more turns
                _ = try await runtime.send(reasoning("first"))
                try await check("a turn with reasoning")
                _ = try await runtime.send(#"use tool lookup {"key":"a"}"#)
                try await check("a tool turn")
                _ = try await runtime.compact()
                try await check("a server compaction")
                _ = try await runtime.send(reasoning("after the compaction"))
                try await check("a turn after the compaction")
                _ = try await runtime.compact(summary: "a local summary", keepingLast: 1)
                try await check("a local compaction")
                _ = try await runtime.send(reasoning("after the local compaction"))
                try await check("a turn after the local compaction")

                // the server can no longer read the opaque items: the next turn drops them
                emulator.rotateContentKey()
                let repaired = try await runtime.stream(reasoning("after the key change")).reduce(into: [ChappieRuntimeTurnEvent]()) {
                    $0.append($1)
                }
                #expect(repaired.contains { if case .contextRepaired = $0 { true } else { false } })
                try await check("a context repair")

                // resumed by another runtime on a fresh store, and continued
                let id = try #require(await runtime.currentThreadID)
                let other = client.runtime(store: ChappieFileThreadStore(directory: threadsFolder(in: folder)))
                let resumed = try await other.resume(threadID: id)
                #expect(resumed == (try await runtime.thread(id: id)))
                _ = try await other.send(#"use tool lookup {"key":"b"}"#)
                _ = try await other.send("last")
                let fresh = try await ChappieFileThreadStore(directory: threadsFolder(in: folder)).thread(id: id)
                #expect(fresh == (try await other.thread(id: id)))
                #expect(fresh.context == (await client.context()))
                #expect(fresh.turns.count == 7 && fresh.turns[4].contextRepair != nil)
                // and the last reply is stored once: in the turn's output item, referred to by the transcript
                let reply = try #require(fresh.turns.last?.outputText)
                let encoded = String(decoding: try JSONEncoder().encode(reply), as: UTF8.self).dropFirst().dropLast()
                var files = ""
                for url in allFiles(in: threadsFolder(in: folder)) where url.lastPathComponent.hasPrefix(id.uuidString.lowercased()) {
                    files += String(decoding: try Data(contentsOf: url), as: UTF8.self)
                }
                #expect(!reply.isEmpty && files.components(separatedBy: encoded).count - 1 == 1, "\(reply)")
            }
        }
    }
}
