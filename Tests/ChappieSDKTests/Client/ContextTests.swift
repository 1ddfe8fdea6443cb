import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieCore

private func inputTexts(_ request: ChappieEmulator.RecordedRequest) throws -> [String] {
    try (json(request)["input"]?.arrayValue ?? []).compactMap { $0["content"]?.arrayValue?.first?["text"]?.stringValue }
}

@Suite("Context management")
struct ContextTests {
    @Test("clearContext starts a new thread with the same session and an empty transcript")
    func clear() async throws {
        try await withSignedInClient { emulator, client, _ in
            _ = try await client.send("remember me")
            let before = await client.context()
            let after = await client.clearContext()
            #expect(after.sessionID == before.sessionID)
            #expect(after.threadID != before.threadID)
            #expect(after.messages.isEmpty)
            _ = try await client.send("fresh")
            let last = try await lastResponseRequest(emulator)
            #expect(try json(last)["prompt_cache_key"]?.stringValue == after.threadID)
            #expect(try !inputTexts(last).contains("remember me"))
        }
    }

    @Test("resumeContext adopts a saved context, which survives a JSON round trip")
    func resume() async throws {
        try await withSignedInClient { emulator, client, configuration in
            _ = try await client.send("saved question")
            let saved = try JSONEncoder().encode(await client.context())
            let restored = try JSONDecoder().decode(ChappieClientContext.self, from: saved)
            let other = ChappieClient(configuration: configuration)
            await other.resumeContext(restored)
            #expect(await other.context().sessionID == restored.sessionID)
            _ = try await other.send("follow-up")
            let texts = try inputTexts(try await lastResponseRequest(emulator))
            #expect(texts.contains("saved question"))
            #expect(texts.last == "follow-up")
        }
    }

    @Test("compactContext(summary:keepingLast:) counts messages, not items: a tool call after a kept message keeps its output")
    func keepingLastCountsMessages() {
        let call = ChappieFunctionCall(callID: "call_1", name: "lookup", arguments: "{}")
        let transcript: [ChappieTranscriptItem] = [
            .message(.user("first")), .message(.assistant("one")),
            .message(.user("look it up")), .reasoning(["type": "reasoning"]), .functionCall(call),
            .functionCallOutput(callID: "call_1", output: "42"), .message(.assistant("It is 42.")),
        ]
        func kept(_ count: Int) -> [ChappieTranscriptItem] { ConversationEngine.fromLastMessages(count, of: transcript) }
        #expect(kept(2) == Array(transcript[2...]), "the last two messages and the call, output and reasoning between them")
        #expect(kept(1) == [.message(.assistant("It is 42."))])
        #expect(kept(4) == transcript && kept(1_000_000) == transcript)
        #expect(kept(0).isEmpty && kept(-5).isEmpty)
    }

    @Test("compactContext(summary:) sends the summary as a system message ahead of the remaining messages")
    func compactWithSummary() async throws {
        try await withSignedInClient { emulator, client, _ in
            _ = try await client.send("one")
            _ = try await client.send("two")
            let context = await client.compactContext(summary: "We talked about one and two.", keepingLast: 2)
            #expect(context.messageCount == 2)
            #expect(context.compactedSummary == "We talked about one and two.")
            _ = try await client.send("three")
            let input = try await lastInput(emulator)
            #expect(input[1]["role"] == "developer")
            #expect(input[1]["content"]?.arrayValue?.first?["text"] == "We talked about one and two.")
            #expect(input.count == 5, "harness, summary, two kept messages, the new one")
        }
    }

    @Test("a model-written compaction is remote compaction v2: a /responses request ending in compaction_trigger; later requests replay its item")
    func remoteCompactionV2() async throws {
        try await withSignedInClient { emulator, client, _ in
            // given
            _ = try await client.send("first")
            _ = try await client.send("second")

            // when
            let compacted = try await client.compactContext()

            // then: one ordinary streamed request, the history then the trigger, and no v1 call
            let request = try await lastResponseRequest(emulator)
            let body = try json(request)
            let input = try #require(body["input"]?.arrayValue)
            #expect(input.last == ["type": "compaction_trigger"])
            #expect(input.dropLast().compactMap { $0["content"]?.arrayValue?.first?["text"]?.stringValue }.suffix(4)
                    == ["first", ChappieEmulator.defaultReply(for: "first"), "second", ChappieEmulator.defaultReply(for: "second")])
            #expect(body["stream"] == true && body["store"] == false)
            #expect(await emulator.recordedRequests().allSatisfy { !$0.path.hasSuffix("/responses/compact") })
            // the transcript: the user messages, then the one compaction item
            #expect(compacted.messages == [.user("first"), .user("second")])
            guard case .compaction(let item)? = compacted.transcript.last else { Issue.record("no compaction item"); return }
            #expect(item["encrypted_content"]?.stringValue?.isEmpty == false)

            // when: the next turn
            let reply = try await client.send("after compaction")

            // then: it starts from the retained messages and the item
            #expect(reply.contains("after compaction"))
            let next = try await lastInput(emulator)
            // replayed as input without its output id (input items carry none, PROTOCOL §4.4)
            var replayed = item.objectValue ?? [:]
            replayed["id"] = nil
            #expect(next.filter { $0["type"] == "compaction" } == [.object(replayed)])
            #expect(!next.contains { $0["content"]?.arrayValue?.first?["text"]?.stringValue == ChappieEmulator.defaultReply(for: "first") })
        }
    }

    @Test("compacting twice keeps only the newest compaction item")
    func onlyNewestCompaction() async throws {
        try await withSignedInClient { _, client, _ in
            _ = try await client.send("one")
            let first = try await client.compactContext()
            _ = try await client.send("two")
            let second = try await client.compactContext()
            let items = second.transcript.compactMap { if case .compaction(let item) = $0 { item } else { nil } }
            #expect(items.count == 1)
            #expect(items.first != first.transcript.last.flatMap { if case .compaction(let item) = $0 { item } else { nil } })
            #expect(second.messages == [.user("one"), .user("two")])
        }
    }

    @Test("a server that rejects the trigger falls back to remote compaction v1 (/responses/compact)")
    func fallsBackToV1() async throws {
        try await withSignedInClient { emulator, client, _ in
            _ = try await client.send("first")
            await emulator.enqueue(.httpError(status: 400, body: #"{"detail":"Invalid input item type: compaction_trigger"}"#, headers: [:]))
            let compacted = try await client.compactContext()
            let hasCompaction = compacted.transcript.contains { if case .compaction = $0 { true } else { false } }
            #expect(hasCompaction)
            #expect(compacted.messages.allSatisfy { $0.role != .assistant })
            let compactRequests = await emulator.recordedRequests().filter { $0.path == "/backend-api/codex/responses/compact" }
            let compactRequest = try #require(compactRequests.first)
            #expect(try json(compactRequest)["stream"] == nil)
            _ = try await client.send("after compaction")
            #expect(try await lastInput(emulator).contains { $0["type"] == "compaction" })
        }
    }

    @Test("a compaction reply without a compaction item, or one without encrypted_content, is a typed error and changes nothing",
          arguments: [ChappieEmulator.ScriptedReply.text("no compaction here"), .compaction(encryptedContent: nil), .compaction(encryptedContent: "")])
    func badCompactionReply(reply: ChappieEmulator.ScriptedReply) async throws {
        try await withSignedInClient { emulator, client, _ in
            _ = try await client.send("first")
            let before = await client.context()
            await emulator.enqueue(reply)
            let error = await #expect(throws: ChappieClientError.self) { try await client.compactContext() }
            guard case .invalidResponse(let message) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(message.contains("compaction"))
            #expect(await client.context() == before)
            #expect(await emulator.recordedRequests().allSatisfy { !$0.path.hasSuffix("/responses/compact") }, "no fallback after a bad reply")
        }
    }

    @Test("selectModel changes the model of later turns and contextSize reports the estimate")
    func modelAndSize() async throws {
        try await withSignedInClient { emulator, client, _ in
            let context = await client.selectModel("gpt-5.4")
            #expect(context.model == "gpt-5.4")
            _ = try await client.send(String(repeating: "a", count: 400))
            let modelRequest = try await lastResponseRequest(emulator)
            #expect(try json(modelRequest)["model"] == "gpt-5.4")
            let size = await client.contextSize(contextWindow: 1000)
            let estimate = await client.context().estimatedTokens
            #expect(size.usedTokens == estimate)
            #expect(size.usedTokens >= 100)
            #expect(size.remainingTokens == 1000 - size.usedTokens)
        }
    }

    @Test("a context saved with messages only still decodes")
    func legacyDecode() throws {
        let json = #"{"sessionID":"s","threadID":"t","model":"m","messages":[{"role":"user","text":"hi","options":{"fastMode":false}}],"createdAt":0,"updatedAt":0}"#
        let context = try JSONDecoder().decode(ChappieClientContext.self, from: Data(json.utf8))
        #expect(context.messages == [.user("hi")])
    }

    @Test("every transcript item kind round-trips through Codable")
    func transcriptRoundTrip() throws {
        let items: [ChappieTranscriptItem] = [
            .message(.system("s")), .message(.developer("d")), .message(.user("u", fastMode: true)), .message(.assistant("a")),
            .functionCall(ChappieFunctionCall(callID: "call_1", name: "f", arguments: #"{"x":1}"#)),
            .functionCallOutput(callID: "call_1", output: "ok"),
            .reasoning(["type": "reasoning", "summary": [], "encrypted_content": "enc"]),
            .compaction(["type": "compaction", "encrypted_content": "zzz"]),
        ]
        let context = ChappieClientContext(sessionID: "s", threadID: "t", model: "m", transcript: items, compactedSummary: "sum",
                                           createdAt: Date(timeIntervalSince1970: 1), updatedAt: Date(timeIntervalSince1970: 2))
        let again = try JSONDecoder().decode(ChappieClientContext.self, from: JSONEncoder().encode(context))
        #expect(again == context)
        #expect(again.transcript[6].inputItem["id"] == nil)
    }
}
