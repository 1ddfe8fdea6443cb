import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieCore

/// The real backend's answer for an opaque item it cannot read (openai/codex issues #8119, #8145).
private let unreadableBody = #"{"error":{"message":"The encrypted content gAAA...DQ== could not be verified.","type":"invalid_request_error","param":null,"code":"invalid_encrypted_content"}}"#

private let reasoningOptions = ChappieMessageOptions(effort: .high, reasoningSummary: .auto)

/// A conversation holding what a changed server key makes unreadable: an encrypted reasoning item
/// and a compaction item (the client's own v2 compaction), then one more turn after it.
private func conversationWithOpaqueItems(_ client: ChappieClient) async throws {
    _ = try await client.send(.user("first", options: reasoningOptions))
    _ = try await client.compactContext()
    _ = try await client.send(.user("second", options: reasoningOptions))
    let transcript = await client.context().transcript
    #expect(transcript.contains { if case .compaction = $0 { true } else { false } })
    #expect(transcript.contains { if case .reasoning = $0 { true } else { false } })
}

private func opaqueItems(_ input: [ChappieJSONValue]) -> [ChappieJSONValue] {
    input.filter { $0["type"] == "reasoning" || $0["type"] == "compaction" }
}

private func hasOpaqueItems(_ context: ChappieClientContext) -> Bool {
    context.transcript.contains { item in
        switch item {
        case .reasoning, .compaction: true
        default: false
        }
    }
}

@Suite("A conversation the server can no longer read")
struct ContextRepairTests {
    @Test("after the server's key changed, the opaque items are dropped and the request sent again in full, once; the messages stay")
    func repairedOverHTTP() async throws {
        try await withSignedInClient { emulator, client, _ in
            // given
            try await conversationWithOpaqueItems(client)
            let messagesBefore = await client.context().messages
            let requestsBefore = await responseRequests(emulator).count
            emulator.rotateContentKey()

            // when
            var events: [ChappieStreamEvent] = []
            for try await event in client.stream("after the key change") { events.append(event) }

            // then: the refused request carried the opaque items, the one sent again none, and both
            // carried every message
            let requests = Array(await responseRequests(emulator).dropFirst(requestsBefore))
            #expect(requests.count == 2)
            let refused = try json(requests[0])["input"]?.arrayValue ?? []
            let resent = try json(requests[1])["input"]?.arrayValue ?? []
            #expect(!opaqueItems(refused).isEmpty)
            #expect(opaqueItems(resent).isEmpty)
            #expect(resent.count == refused.count - opaqueItems(refused).count)
            let repair = try #require(events.compactMap { if case .contextRepaired(let repair) = $0 { repair } else { nil } }.first)
            #expect(repair.droppedCompactionItems == 1)
            #expect(repair.droppedReasoningItems >= 1)
            #expect(repair.summary.contains("1 compaction item"))
            // the repair comes before the reply, which completes
            let repairIndex = try #require(events.firstIndex { if case .contextRepaired = $0 { true } else { false } })
            let firstText = try #require(events.firstIndex { if case .textDelta = $0 { true } else { false } })
            #expect(repairIndex < firstText)
            guard case .completed(let response)? = events.last else { Issue.record("no completion"); return }
            #expect(response.outputText.contains("after the key change"))
            // and the conversation itself is repaired: the next turn is one request
            let context = await client.context()
            #expect(!hasOpaqueItems(context))
            #expect(Array(context.messages.prefix(messagesBefore.count)) == messagesBefore)
            _ = try await client.send("and later")
            #expect(await responseRequests(emulator).count == requestsBefore + 3)
        }
    }

    @Test("the same repair over the WebSocket")
    func repairedOverWebSocket() async throws {
        try await withSignedInClient(configure: { $0.streamingTransportPolicy = ChappieStreamingTransportPolicy(prewarmsWebSocket: false) }) {
            emulator, client, _ in
            try await conversationWithOpaqueItems(client)
            emulator.rotateContentKey()

            var repairs: [ChappieContextRepair] = []
            var response: ChappieResponse?
            for try await event in client.stream("after the key change") {
                if case .contextRepaired(let repair) = event { repairs.append(repair) }
                if case .completed(let completed) = event { response = completed }
            }

            #expect(repairs.count == 1)
            #expect(response?.transport == .webSocket)
            #expect(response?.outputText.contains("after the key change") == true)
            #expect(!hasOpaqueItems(await client.context()))
            #expect(await responseRequests(emulator).isEmpty, "nothing fell back to HTTP")
        }
    }

    @Test("a server that refuses the repaired request too ends the turn with unreadableEncryptedContent, after two requests")
    func refusedAgain() async throws {
        try await withSignedInClient { emulator, client, _ in
            try await conversationWithOpaqueItems(client)
            let requestsBefore = await responseRequests(emulator).count
            emulator.rotateContentKey()
            await emulator.enqueue(.httpError(status: 400, body: unreadableBody, headers: [:]))

            await #expect(throws: ChappieClientError.unreadableEncryptedContent("The encrypted content gAAA...DQ== could not be verified.")) {
                _ = try await client.send("after the key change")
            }

            #expect(await responseRequests(emulator).count == requestsBefore + 2)
            // the conversation is still repaired, so it goes on
            #expect(!hasOpaqueItems(await client.context()))
            let reply = try await client.send("go on")
            #expect(reply.contains("go on"))
        }
    }

    @Test("with nothing opaque to drop, the refusal is the turn's error at once: one request")
    func nothingToDrop() async throws {
        try await withSignedInClient { emulator, client, _ in
            _ = try await client.send("plain")
            await emulator.enqueue(.httpError(status: 400, body: unreadableBody, headers: [:]))
            let requestsBefore = await responseRequests(emulator).count

            await #expect(throws: ChappieClientError.unreadableEncryptedContent("The encrypted content gAAA...DQ== could not be verified.")) {
                _ = try await client.send("again")
            }
            #expect(await responseRequests(emulator).count == requestsBefore + 1)
        }
    }

    @Test("compactContext() after the key change drops the unreadable items and compacts what is left")
    func compactionRepaired() async throws {
        try await withSignedInClient { emulator, client, _ in
            try await conversationWithOpaqueItems(client)
            emulator.rotateContentKey()

            let compacted = try await client.compactContext()

            // a new compaction item (sealed with the new key), no reasoning
            let items = compacted.transcript.filter { if case .compaction = $0 { true } else { false } }
            #expect(items.count == 1)
            #expect(!compacted.transcript.contains { if case .reasoning = $0 { true } else { false } })
            let reply = try await client.send("after compaction")
            #expect(reply.contains("after compaction"))
        }
    }

    @Test("the error text names the failure and no opaque data")
    func description() {
        let error = ChappieClientError.unreadableEncryptedContent("The encrypted content gAAA...DQ== could not be verified.")
        #expect(error.localizedDescription.contains("could not read the saved reasoning or compaction data"))
        #expect(!error.requiresReauthentication)
    }
}
