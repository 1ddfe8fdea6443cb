import ChappieSDK
import ChappieSDKTesting
import Foundation
import Testing

// Samples of https://docs.chappiesdk.com/guides/context-management, as published, and of the
// calls its prose names. Lines ending in `// +test` are not in the docs.

/// "Snapshot the current context".
func contextSnapshot(client: ChappieClient) async {
    let snapshot = await client.context()

    print("Session:  \(snapshot.sessionID)")
    print("Thread:   \(snapshot.threadID)")
    print("Model:    \(snapshot.model)")
    print("Messages: \(snapshot.messageCount)")
    print("~Tokens:  \(snapshot.estimatedTokens)")
}

/// "Measure context size" (the call the prose names, with its example window).
func contextMeasure(client: ChappieClient) async -> ChappieContextSize {
    await client.contextSize(contextWindow: 272_000)
}

@Suite("Published docs: Context management")
struct ContextSampleTests {
    @Test("the snapshot prints the session, thread, model, message count and estimate")
    func snapshot() async throws {
        try await DocsEnvironment.run { docs in
            let client = Chappie.client()
            await docs.emulator.scriptReplies(.text("Hello there."))
            _ = try await client.send("Hi")
            await contextSnapshot(client: client)
            let context = await client.context()
            #expect(docs.output.text == """
                Session:  \(context.sessionID)
                Thread:   \(context.threadID)
                Model:    gpt-5.5
                Messages: 2
                ~Tokens:  \(context.estimatedTokens)

                """)
        }
    }

    @Test("clear, resume, compact and measure do what the guide says")
    func contextCalls() async throws {
        try await DocsEnvironment.run { docs in
            let client = Chappie.client()
            await docs.emulator.scriptReplies(.text("Noted."))
            _ = try await client.send("My SKU is A1.")
            let saved = await client.context()
            let data = try JSONEncoder().encode(saved)  // "a plain Codable value"

            let cleared = await client.clearContext()
            #expect(cleared.sessionID == saved.sessionID)
            #expect(cleared.threadID != saved.threadID)
            #expect(cleared.messages.isEmpty)

            let resumed = await client.resumeContext(try JSONDecoder().decode(ChappieClientContext.self, from: data))
            #expect(resumed.threadID == saved.threadID)
            #expect(resumed.messages == saved.messages)

            let compacted = await client.compactContext(summary: "The user's SKU is A1.")
            #expect(compacted.compactedSummary == "The user's SKU is A1.")
            #expect(compacted.messages.isEmpty)

            let size = await contextMeasure(client: client)
            #expect(size.contextWindow == 272_000)
            #expect(size.remainingTokens == 272_000 - size.usedTokens)
        }
    }
}
