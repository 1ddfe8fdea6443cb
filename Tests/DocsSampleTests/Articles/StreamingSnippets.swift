import ChappieSDK
import ChappieSDKTesting
import Testing

// The code of the DocC article "Streaming" (Sources/ChappieSDK/ChappieSDK.docc), compiled and
// run here; CatalogSnippetTests checks that each of the article's blocks appears here.

func streamingEveryEvent(client: ChappieClient) async throws -> String {
    var reply = ""
    for try await event in client.stream("Write a haiku about Swift") {
        switch event {
        case .textDelta(let text): reply += text
        case .reasoningSummaryDelta(let summary): print("thinking:", summary)
        case .usageLimits(let snapshot): print("used", snapshot.primary?.usedPercent ?? 0, "%")
        case .webSearch(let step): print("searching:", step.action)
        case .toolCallRequested, .approvalRequested, .toolCallCompleted: break
        case .contextRepaired(let repair): print(repair.summary)
        case .completed(let response): print("done over", response.transport?.rawValue ?? "?")
        }
    }
    return reply
}

func streamingStop(client: ChappieClient) async {
    let turn = Task { try await streamingEveryEvent(client: client) }
    turn.cancel()  // the request stops at once; the task throws CancellationError
    _ = await turn.result  // +test
}

func streamingPartialReply(client: ChappieClient) async {
    do {
        _ = try await client.send("Tell me a long story")
    } catch {
        let last = await client.context().messages.last
        if last?.isPartial == true { print("kept what was shown:", last?.text ?? "") }
    }
}

@Suite("DocC articles: Streaming")
struct StreamingSnippetTests {
    @Test("every event of a turn, in order, ending in .completed with the transport")
    func everyEvent() async throws {
        try await DocsEnvironment.run { docs in
            await docs.emulator.scriptReplies(.text("Types hold the line."))
            let reply = try await streamingEveryEvent(client: Chappie.client())
            #expect(reply == "Types hold the line.")
            #expect(docs.output.text.hasSuffix("done over websocket\n"))
        }
    }

    @Test("cancelling the task stops the turn with CancellationError")
    func stop() async throws {
        try await DocsEnvironment.run { docs in
            await docs.emulator.scriptReplies(.stall)
            await streamingStop(client: Chappie.client())
        }
    }

    @Test("text shown before a dropped connection stays in the context as a partial reply")
    func partial() async throws {
        try await DocsEnvironment.run { docs in
            await docs.emulator.scriptReplies(.disconnect(afterEvents: 7))
            await streamingPartialReply(client: Chappie.client(streamingTransportPolicy: .httpSSEOnly))
            #expect(docs.output.text.hasPrefix("kept what was shown: "))
        }
    }
}
