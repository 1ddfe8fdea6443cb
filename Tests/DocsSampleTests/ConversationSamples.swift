import ChappieSDK
import ChappieSDKTesting
import Testing

// Samples of https://docs.chappiesdk.com/concepts/conversations, as published. Lines ending in
// `// +test` are not in the docs: they hand a value to the test. See DocsEnvironment.

/// "Sending a Single Message".
func conversationsSendingASingleMessage() async throws -> String {
    let client = Chappie.client()
    let reply = try await client.send("Write a welcome message.")
    return reply  // +test
}

/// "Sending a Single Message": a `ChappieInputMessage` with per-message options.
func conversationsFastMode(client: ChappieClient) async throws -> String {
    let reply = try await client.send(.user("Quick summary?", fastMode: true))
    return reply  // +test
}

/// "Building Multi-Turn Requests".
func conversationsMultiTurnRequest(client: ChappieClient) async throws {
    let request = ChappieResponseRequest(messages: [
        .system("Answer like a concise product assistant."),
        .user("What plan am I on?"),
        .assistant("You are on Plus."),
        .user("What model should I use?"),
    ])
    let response = try await client.response(request)
    print(response.outputText)
}

@Suite("Published docs: Conversations")
struct ConversationSampleTests {
    @Test("send(_:) returns the model's reply")
    func sendReturnsTheReply() async throws {
        try await DocsEnvironment.run { docs in
            await docs.emulator.scriptReplies(.text("Welcome aboard!"))
            let reply = try await conversationsSendingASingleMessage()
            #expect(reply == "Welcome aboard!")
        }
    }

    @Test("fastMode: true sends reasoning effort low, as ChappieMessageOptions(fastMode: true) does")
    func fastModeIsLowEffort() async throws {
        try await DocsEnvironment.run { docs in
            let client = Chappie.client()
            await docs.emulator.scriptReplies(.text("Short."))
            let reply = try await conversationsFastMode(client: client)
            #expect(reply == "Short.")
            let effort = await docs.responsesRequests().last?["reasoning"]?["effort"]?.stringValue
            #expect(effort == "low")
            #expect(ChappieInputMessage.user("Quick summary?", fastMode: true).options == ChappieMessageOptions(fastMode: true))
        }
    }

    @Test("response(_:) sends the explicit transcript and later sends see the recorded turn")
    func responseRecordsTheTurn() async throws {
        try await DocsEnvironment.run { docs in
            let client = Chappie.client(streamingTransportPolicy: .httpSSEOnly)
            await docs.emulator.scriptReplies(.text("Use gpt-5.5."), .text("Yes."))
            try await conversationsMultiTurnRequest(client: client)
            #expect(docs.output.text == "Use gpt-5.5.\n")
            let sent = try #require(await docs.responsesRequests().last)
            let texts = sent["input"]?.arrayValue?.compactMap { $0["content"]?.arrayValue?.first?["text"]?.stringValue } ?? []
            #expect(Array(texts.suffix(4)) == [
                "Answer like a concise product assistant.", "What plan am I on?", "You are on Plus.", "What model should I use?",
            ])
            // "Subsequent calls to send(_:) will see all previously recorded turns."
            _ = try await client.send("Sure?")
            let next = try #require(await docs.responsesRequests().last)
            let nextTexts = next["input"]?.arrayValue?.compactMap { $0["content"]?.arrayValue?.first?["text"]?.stringValue } ?? []
            #expect(Array(nextTexts.suffix(2)) == ["Use gpt-5.5.", "Sure?"])
        }
    }
}
