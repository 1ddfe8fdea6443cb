import ChappieSDK
import ChappieSDKRuntime
import Foundation
import Testing

@Suite("Threads as stored data")
struct ChappieThreadTests {
    @Test("every item kind survives a save and load byte for byte", arguments: StoreKind.allCases)
    func roundTripEveryItemKind(kind: StoreKind) async throws {
        try await withTemporaryFolder { folder in
            // given
            let store = kind.make(in: folder, redactor: .none)
            let thread = ThreadFixtures.everyItemKind()
            // when
            let saved = try await store.save(thread)
            let loaded = try await kind == .file ? kind.make(in: folder, redactor: .none).thread(id: thread.id) : store.thread(id: thread.id)
            // then
            var expected = thread
            expected.revision = 1
            #expect(saved == expected)
            #expect(loaded == expected)
            #expect(loaded.turns[0].toolCalls[0].duration == .milliseconds(1234))
            #expect(loaded.turns[0].toolCalls[5].status.rawValue == "from_the_future")
            #expect(loaded.context.messages[4].text == ThreadFixtures.awkwardText)
            #expect(loaded.context.compactedSummary == "summary " + ThreadFixtures.awkwardText)
            #expect(loaded.turns.map(\.status) == [.completed, .failed, .cancelled, .failed])
            #expect(loaded.turns[1].failure?.kind == .client)
            #expect(loaded.turns[3].failure?.requiresReauthentication == true)
        }
    }

    @Test("the default credential redactor leaves ordinary text alone", arguments: StoreKind.allCases)
    func defaultRedactorKeepsOrdinaryText(kind: StoreKind) async throws {
        try await withTemporaryFolder { folder in
            let store = kind.make(in: folder)
            let thread = ThreadFixtures.everyItemKind()
            let loaded = try await store.save(thread)
            var expected = thread
            expected.revision = 1
            #expect(loaded == expected)
        }
    }

    @Test("titles come from the first line of the first message and are shortened")
    func titles() {
        #expect(ChappieThread.title(from: "  Plan a trip\nto Rome") == "Plan a trip")
        #expect(ChappieThread.title(from: "\n\n") == "Untitled")
        let long = ChappieThread.title(from: String(repeating: "x", count: 200), maximumCharacters: 10)
        #expect(long == "xxxxxxxxx…")
        #expect(long.count == 10)
    }

    @Test("a title is redacted before it is cut, and a credential cut in half is still redacted", arguments: [
        // a whole secret past the cut: redacting first removes it
        ("here is my key eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.c2lnbmF0dXJlc2lnbmF0dXJl end", 30, "here is my key [redacted] end"),
        ("and key sk-abcdefghijklmnopqrstuvwxyz0123456789", 20, "and key [redacted]"),
        // too short for the redactor, but cut in the middle: the start of a secret is a secret
        ("token eyJhbGciOiJIUzI1NiJ9 more words", 16, "token [redacted]…"),
        ("my key is sk-abc123defg and more", 14, "my key is [redacted]…"),
        ("rt_abc is cut", 4, "[redacted]…"),
        // ordinary words are cut as before
        ("a skeleton key opens doors", 10, "a skeleto…"),
    ])
    func titleRedaction(text: String, maximum: Int, expected: String) {
        #expect(ChappieThread.title(from: text, maximumCharacters: maximum) == expected)
    }

    @Test("a title honours the store's own redactor before it is cut")
    func titleCustomRedactor() {
        let title = ChappieThread.title(from: "the app secret is hunter2-app-secret-value ok", maximumCharacters: 25,
                                        redactor: .replacing(["hunter2-app-secret-value"]))
        #expect(title == "the app secret is [redac…")
        #expect(!title.contains("hunter"))
    }

    @Test("total usage sums the turns that reported usage")
    func totalUsage() {
        var thread = ThreadFixtures.everyItemKind()
        #expect(thread.totalUsage?.totalTokens == 153)
        thread.turns.append(thread.turns[0])
        #expect(thread.totalUsage?.inputTokens == 240)
        thread.turns = []
        #expect(thread.totalUsage == nil)
    }

    @Test("tool calls are read from function_call output items only")
    func toolCallsFromItems() {
        let items: [ChappieJSONValue] = [
            ["type": "message", "content": []],
            ["type": "function_call", "call_id": "call_9", "name": "search", "arguments": #"{"q":1}"#],
            ["type": "function_call", "name": "no id"],
        ]
        let calls = ChappieRuntimeToolCall.requestedCalls(in: items)
        #expect(calls == [ChappieRuntimeToolCall(callID: "call_9", name: "search", arguments: #"{"q":1}"#, status: .requested)])
    }

    @Test("failure messages are bounded")
    func failureBounded() {
        let failure = ChappieThreadTurnFailure(kind: .other, message: String(repeating: "é", count: 5000))
        #expect(failure.message.utf8.count <= ChappieThreadTurnFailure.maximumMessageBytes)
        #expect(ChappieThreadTurnFailure(CancellationError()).kind == .cancelled)
    }
}
