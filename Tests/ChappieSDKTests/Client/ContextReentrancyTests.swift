import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieCore

private func lastAssistant(_ context: ChappieClientContext) -> ChappieInputMessage? {
    context.messages.last { $0.role == .assistant }
}

@Suite("Context changes during a turn")
struct ContextReentrancyTests {
    @Test("clearContext called while a reply streams takes effect after it; the finishing turn does not undo it")
    func clearDuringStream() async throws {
        try await withSignedInClient { emulator, client, _ in
            await emulator.scriptReplies(.slowText("one two three four five six", eventInterval: .milliseconds(30)))
            var cleared: Task<ChappieClientContext, Never>?
            for try await event in client.stream("count for me") {
                if case .textDelta = event, cleared == nil { cleared = Task { await client.clearContext() } }
            }
            let context = try #require(await cleared?.value)
            #expect(context.messages.isEmpty)
            #expect(await client.context().messages.isEmpty)
            #expect(await client.context().threadID == context.threadID)
        }
    }

    @Test("resumeContext called while a reply streams adopts the saved context after the turn, unchanged")
    func resumeDuringStream() async throws {
        try await withSignedInClient { emulator, client, _ in
            let saved = ChappieClientContext(sessionID: "s", threadID: "saved-thread", model: "gpt-5.5", messages: [.user("saved")],
                                             compactedSummary: nil, createdAt: Date(), updatedAt: Date())
            await emulator.scriptReplies(.slowText("one two three four five six", eventInterval: .milliseconds(30)))
            var resumed: Task<ChappieClientContext, Never>?
            for try await event in client.stream("a new question") {
                if case .textDelta = event, resumed == nil { resumed = Task { await client.resumeContext(saved) } }
            }
            _ = await resumed?.value
            #expect(await client.context().messages == [.user("saved")])
            #expect(await client.context().threadID == "saved-thread")
        }
    }

    @Test("a tool handler that clears the context does not deadlock; the clear applies when its turn ends")
    func clearFromToolHandler() async throws {
        let box = ClientBox()
        let tool = ChappieHostTool(name: "forget", description: "Forget everything", inputSchema: ["type": "object"], policy: .automatic) { _ in
            let projected = await box.client?.clearContext()
            return ChappieToolResult(output: "cleared \(projected?.messages.count ?? -1)")
        }
        try await withSignedInClient(tools: [tool]) { emulator, client, _ in
            await box.set(client)
            await emulator.scriptToolCall("forget")
            _ = try await client.send("please forget")
            #expect(await client.context().messages.isEmpty)
            _ = try await client.send("next")
            #expect(try await lastInput(emulator).contains { $0["content"]?.arrayValue?.first?["text"]?.stringValue == "please forget" } == false)
        }
    }

    @Test("text shown before a dropped connection stays in the context as a partial reply")
    func partialAfterFailure() async throws {
        try await withSignedInClient { emulator, client, _ in
            await emulator.scriptReplies(.cut(.text("alpha beta gamma delta epsilon zeta"), afterEvents: 7, ending: .close))
            var shown = ""
            let error = await #expect(throws: ChappieClientError.self) {
                for try await event in client.stream("tell me") { if case .textDelta(let text) = event { shown += text } }
            }
            #expect(error == .streamEndedBeforeCompletion)
            #expect(!shown.isEmpty)
            let partial = try #require(lastAssistant(await client.context()))
            #expect(partial.isPartial)
            #expect(partial.text == shown)
            _ = try await client.send("go on")
            let texts = try await lastInput(emulator).compactMap { $0["content"]?.arrayValue?.first?["text"]?.stringValue }
            #expect(texts.suffix(3) == ["tell me", shown, "go on"])
        }
    }

    @Test("text shown before the consumer stopped reading stays in the context as a partial reply")
    func partialAfterCancellation() async throws {
        try await withSignedInClient { emulator, client, _ in
            // Some deltas, then the reply hangs: the turn can only end by the consumer leaving.
            await emulator.scriptReplies(.cut(.text("alpha beta gamma delta epsilon zeta eta theta"), afterEvents: 7, ending: .stall))
            var shown = ""
            for try await event in client.stream("tell me slowly") {
                if case .textDelta(let text) = event {
                    shown += text
                    break
                }
            }
            // At once, as an app saving on "Stop" asks: the turn is there (before, it appeared
            // only once its request had wound down).
            let messages = await client.context().messages
            let partial = try #require(messages.last, "\(messages)")
            #expect(partial.isPartial)
            #expect(partial.text.hasPrefix(shown))
            #expect(messages.map(\.text) == ["tell me slowly", partial.text])
            _ = try await client.send("go on")
            #expect(await client.context().messages.prefix(2).map(\.text) == ["tell me slowly", partial.text])
        }
    }
}

/// Lets a tool handler reach the client it runs in.
actor ClientBox {
    private(set) var client: ChappieClient?
    func set(_ client: ChappieClient) { self.client = client }
}
