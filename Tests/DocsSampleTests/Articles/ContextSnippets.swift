import ChappieSDK
import ChappieSDKTesting
import Foundation
import Testing

// The code of the DocC article "Context and compaction" (Sources/ChappieSDK/ChappieSDK.docc),
// compiled and run here; CatalogSnippetTests checks that each of the article's blocks appears here.

func contextSave(client: ChappieClient) async throws -> Data {
    let saved = try JSONEncoder().encode(await client.context())
    return saved  // +test
}

func contextRestore(client: ChappieClient, saved: Data) async throws {
    let context = try JSONDecoder().decode(ChappieClientContext.self, from: saved)
    await client.resumeContext(context)
}

func contextKeepSmall(client: ChappieClient) async throws {
    if await client.contextSize(contextWindow: 272_000).usedPercent > 80 {
        try await client.compactContext()  // the backend compacts; the context keeps one opaque item
    }
}

func contextOwnSummary(client: ChappieClient) async {
    await client.compactContext(summary: "The user is planning a trip to Lisbon in May.", keepingLast: 2)
}

@Suite("DocC articles: Context and compaction")
struct ContextSnippetTests {
    @Test("a saved context resumes in another client: same thread, same messages")
    func saveAndRestore() async throws {
        try await DocsEnvironment.run { docs in
            let first = Chappie.client()
            await docs.emulator.scriptReplies(.text("Noted."))
            _ = try await first.send("I like tea.")
            let saved = try await contextSave(client: first)
            let second = Chappie.client()
            try await contextRestore(client: second, saved: saved)
            #expect(await second.context().threadID == first.context().threadID)
            #expect(await second.context().messages.count == 2)
        }
    }

    @Test("compaction runs only past the threshold; an own summary keeps the last messages")
    func compaction() async throws {
        try await DocsEnvironment.run { docs in
            let client = Chappie.client()
            await docs.emulator.scriptReplies(.text("Noted."))
            _ = try await client.send("I like tea.")
            try await contextKeepSmall(client: client)
            #expect(await client.context().compactedSummary == nil)
            #expect(await client.context().messages.count == 2)
            await contextOwnSummary(client: client)
            let context = await client.context()
            #expect(context.compactedSummary == "The user is planning a trip to Lisbon in May.")
            #expect(context.messages.map(\.text) == ["I like tea.", "Noted."])
        }
    }
}
