@_spi(ChappieCredentialStorage) import ChappieCore
import ChappieSDKRuntime
import ChappieSDKTesting
import Foundation
import Testing

@Suite("Redaction before anything is written")
struct ThreadRedactionTests {
    /// A thread with secrets in every kind of text it stores.
    private static func leakyThread(secrets: [String]) -> ChappieThread {
        let joined = secrets.joined(separator: " and ")
        var thread = ThreadFixtures.small(title: "title " + joined, text: "please use Bearer \(secrets[0]) now")
        thread.context.compactedSummary = "summary with \(joined)"
        thread.context.messages.append(.assistant("your refresh_token=\(secrets[1]) is here"))
        thread.turns = [ChappieThreadTurn(
            input: [.user(joined)], startedAt: ThreadFixtures.start, endedAt: ThreadFixtures.start, status: .failed,
            outputText: joined, reasoningSummary: joined,
            items: [["type": "function_call_output", "call_id": "call_1", "output": .string(joined), "nested": [.string(joined)]]],
            toolCalls: [ChappieRuntimeToolCall(callID: "call_1", name: "env", arguments: #"{"key":"\#(secrets[2])"}"#,
                                               status: .completed, output: joined)],
            approvals: [ChappieRuntimeApproval(callID: "call_1", toolName: "env", arguments: joined, reason: joined)],
            failure: ChappieThreadTurnFailure(kind: .other, message: "failed with \(joined)"))]
        thread.compactions = [ChappieThreadCompaction(summary: joined, createdAt: ThreadFixtures.start, messagesBefore: 1, messagesAfter: 0)]
        return thread
    }

    /// The raw tokens of a fixture credential, read from its stored form (SPI: the SDK never hands
    /// them out otherwise).
    private static func tokens(of credential: ChappieCredential) throws -> (access: String, refresh: String, id: String) {
        let object = try #require(try JSONSerialization.jsonObject(with: credential.encodedForStorage()) as? [String: Any])
        return (try #require(object["access_token"] as? String), try #require(object["refresh_token"] as? String),
                try #require(object["id_token"] as? String))
    }

    @Test("no token or secret text reaches a thread file or the index")
    func fileStoreWritesNoSecret() async throws {
        try await withTemporaryFolder { folder in
            // given: real-shaped tokens from the auth fixtures, an API key and an app secret
            let tokens = try Self.tokens(of: ChappieAuthFixtures.credential())
            let appSecret = "hunter2-app-secret-value"
            let secrets = [tokens.access, tokens.refresh, "sk-proj-abcdefghijklmnopqrstuvwx", tokens.id, appSecret]
            let store = ChappieFileThreadStore(directory: threadsFolder(in: folder),
                                               redactor: .credentials.then(.replacing([appSecret])))
            let thread = Self.leakyThread(secrets: secrets)
            // when
            let stored = try await store.save(thread)
            try await store.update(id: thread.id) { $0.context.messages.append(.user("again \(appSecret) \(tokens.access)")) }
            // then
            for file in allFiles(in: threadsFolder(in: folder)) {
                let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
                for secret in secrets { #expect(!text.contains(secret), "\(file.lastPathComponent) holds a secret") }
            }
            #expect(!stored.title.contains(appSecret))
            #expect(stored.context.messages[0].text == "please use Bearer [redacted] now")
            let loaded = try await store.thread(id: thread.id)
            #expect(loaded.context.messages.last?.text.contains(ChappieThreadRedactor.placeholder) == true)
            #expect(loaded.id == thread.id)
        }
    }

    @Test("the in-memory store redacts too")
    func memoryStoreRedacts() async throws {
        let secret = "sk-abcdefghijklmnopqrstuvwxyz"
        let store = ChappieInMemoryThreadStore()
        let stored = try await store.save(ThreadFixtures.small(text: "key \(secret)"))
        #expect(stored.context.messages[0].text == "key [redacted]")
        #expect(try await store.thread(id: stored.id).context.messages[0].text == "key [redacted]")
    }

    @Test("a custom redactor sees every string and cannot change the thread's id")
    func customRedactor() async throws {
        let store = ChappieInMemoryThreadStore(redactor: ChappieThreadRedactor { _ in "X" })
        let thread = ThreadFixtures.everyItemKind()
        let stored = try await store.save(thread)
        #expect(stored.id == thread.id)
        #expect(stored.title == "X")
        #expect(stored.context.messages.allSatisfy { $0.text == "X" })
        #expect(stored.turns[0].toolCalls.allSatisfy { $0.output == nil || $0.output == "X" })
        #expect(stored.turns[0].usage == thread.turns[0].usage)
        #expect(stored.createdAt == thread.createdAt)
    }

    @Test("the credential patterns", arguments: [
        ("Authorization: Bearer abcdefghijklmnop", "Authorization: Bearer [redacted]"),
        ("token eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.sig end", "token [redacted] end"),
        (#"{"refresh_token": "rt_abc.def"}"#, #"{"refresh_token": "[redacted]"}"#),
        ("code_verifier=abc123&x=1", "code_verifier=[redacted]&x=1"),
        ("key sk-abcdefghijklmnopqrstu", "key [redacted]"),
        ("token rt_abcdefghijklmnopqr", "token [redacted]"),
        ("nothing secret here: a token of thanks", "nothing secret here: a token of thanks"),
        // split by invisible characters, still a credential
        ("token e\u{200B}yJhbGciOiJub25lIn0.eyJzdWIiOiIx\u{FEFF}In0.sig end", "token [redacted] end"),
        ("key sk-abcdefgh\u{2060}ijklmnop\u{00AD}qrstu", "key [redacted]"),
        // invisible characters in ordinary text stay (an emoji ZWJ sequence)
        ("family 👨\u{200D}👩\u{200D}👧 and a token of thanks", "family 👨\u{200D}👩\u{200D}👧 and a token of thanks"),
    ])
    func credentialPatterns(input: String, expected: String) {
        #expect(ChappieThreadRedactor.credentials.redact(input) == expected)
    }

    @Test("an exact value split by a zero-width space is replaced too")
    func exactValueSplit() {
        let redactor = ChappieThreadRedactor.replacing(["my-app-secret-42"])
        #expect(redactor.redact("it is my-app-\u{200B}secret-42.") == "it is [redacted].")
        #expect(redactor.redact("nothing \u{200B} here") == "nothing \u{200B} here")
    }
}
