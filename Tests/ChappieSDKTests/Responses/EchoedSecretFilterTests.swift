import ChappieEmulator
@testable import ChappieCore
import ChappieSDKTesting
@testable import ChappieTransport
import Foundation
import Testing

private let token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ"

@Suite("A reply that echoes the user's access token")
struct EchoedSecretFilterTests {
    @Test("the token is replaced wherever a reply is split, and no character of it is ever shown")
    func everySplit() {
        let reply = "before \(token) after, and the end"
        let expected = "before [redacted] after, and the end"
        let scalars = Array(reply.unicodeScalars)
        for first in stride(from: 0, through: scalars.count, by: 3) {
            for second in stride(from: first, through: scalars.count, by: 7) {
                var filter = EchoedSecretFilter(secrets: [token])
                let pieces = [scalars[..<first], scalars[first..<second], scalars[second...]]
                    .map { String(String.UnicodeScalarView($0)) }
                var shown = pieces.map { filter.feed($0) }
                shown.append(filter.finish())
                #expect(shown.joined() == expected, "split at \(first), \(second)")
                // no piece shows a run of the token long enough to matter
                #expect(!shown.contains { $0.contains("eyJhbGciOiJSUzI1") }, "split at \(first), \(second)")
            }
        }
    }

    @Test("a combining mark or variation selector after the token, or invisible characters inside it, do not hide it",
          arguments: ["A \(token)\u{0301} B", "A \(token)\u{FE0F} B", "A \(token)\u{1F3FB} B",
                      "A \(token.prefix(20))\u{200B}\(token.dropFirst(20)) B", "A e\u{2060}\(token.dropFirst())\u{00AD} B"])
    func hiddenToken(reply: String) {
        var whole = EchoedSecretFilter(secrets: [token])
        let once = whole.feed(reply) + whole.finish()
        #expect(!once.contains("eyJhbGciOiJSUzI1"), "\(once)")
        // (compared by scalars: the combining mark now sits on the placeholder's "]")
        #expect(once.unicodeScalars.starts(with: "A [redacted]".unicodeScalars) && once.hasSuffix(" B"), "\(once)")
        // and split anywhere
        let scalars = Array(reply.unicodeScalars)
        for cut in stride(from: 0, through: scalars.count, by: 5) {
            var filter = EchoedSecretFilter(secrets: [token])
            let shown = filter.feed(String(String.UnicodeScalarView(scalars[..<cut]))) + filter.feed(String(String.UnicodeScalarView(scalars[cut...])))
                + filter.finish()
            #expect(shown == once, "split at \(cut)")
        }
        #expect(EchoedSecretFilter(secrets: [token]).redacted(reply) == once)
    }

    @Test("a web search step that echoes the token is redacted, and so are an error's code and an incomplete reason")
    func searchAndErrors() async throws {
        try await withSignedInClient(configure: { $0.webSearch = true; $0.model = "gpt-5.6-sol" }) { emulator, client, configuration in
            let accessToken = try #require(try await configuration.credentialStore.loadCredential(for: configuration.credentialKey)?.accessToken)
            // a search step whose query holds the token, as the server streams it
            var handler = ResponseEventHandler()
            handler.guardEchoes(of: [accessToken])
            let added = try #require(ResponsesEvent.decode(
                #"{"type":"response.output_item.added","output_index":0,"item":{"type":"web_search_call","id":"ws_1","status":"in_progress","action":{"type":"search","query":"q=\#(accessToken)"}}}"#))
            let done = try #require(ResponsesEvent.decode(
                #"{"type":"response.output_item.done","output_index":0,"item":{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"q=\#(accessToken)"}}}"#))
            let steps = LockedBox<[ChappieWebSearchCall]>([])
            for event in [added, done] {
                _ = try handler.handle(event) { if case .webSearch(let call) = $0 { steps.withLock { $0.append(call) } } }
            }
            let calls = steps.withLock { $0 }
            #expect(calls.count == 2)
            #expect(calls.allSatisfy { $0.action == .search(query: "q=[redacted]") })

            await emulator.enqueue(.failed(code: accessToken + "\u{1B}[2J\u{202E}", message: "x"))
            let failed = await #expect(throws: ChappieClientError.self) { _ = try await client.send("fail") }
            let failure = failed?.localizedDescription ?? ""
            #expect(!failure.contains(accessToken) && !failure.contains("\u{1B}") && !failure.contains("\u{202E}"), "\(failure)")

            await emulator.enqueue(.incomplete(reason: accessToken))
            let incomplete = await #expect(throws: ChappieClientError.self) { _ = try await client.send("cut") }
            #expect(incomplete?.localizedDescription.contains(accessToken) == false)
        }
    }

    @Test("ordinary text passes at once; only an end that could start the token waits for the next piece")
    func ordinaryText() {
        var filter = EchoedSecretFilter(secrets: [token])
        #expect(filter.feed("Hello, world.") == "Hello, world.")
        #expect(filter.feed("I see ey") == "I see ")
        #expect(filter.shown("Hello, world.I see ey") == "Hello, world.I see ", "what was shown leaves out what is held")
        #expect(filter.feed("es and ears") == "eyes and ears")
        #expect(filter.finish() == "")
        var short = EchoedSecretFilter(secrets: ["short"])
        #expect(short.feed("a short text") == "a short text", "short values are ignored")
    }

    @Test("the streamed text, the response, the items and the context never carry the token, over either transport",
          arguments: [ChappieStreamingTransportPolicy.httpSSEOnly, ChappieStreamingTransportPolicy(prewarmsWebSocket: false)])
    func echoedByTheBackend(policy: ChappieStreamingTransportPolicy) async throws {
        try await withSignedInClient(configure: { $0.streamingTransportPolicy = policy }) { emulator, client, configuration in
            let accessToken = try #require(try await configuration.credentialStore.loadCredential(for: configuration.credentialKey)?.accessToken)
            await emulator.enqueue(.text("Your header was Bearer \(accessToken) — keep it safe."))

            var deltas = ""
            var response: ChappieResponse?
            for try await event in client.stream("what did I send?") {
                if case .textDelta(let text) = event { deltas += text }
                if case .completed(let completed) = event { response = completed }
            }

            #expect(deltas == "Your header was Bearer [redacted] — keep it safe.")
            #expect(response?.outputText == deltas)
            #expect(response?.items.jsonDescription.contains(accessToken) == false)
            #expect(await client.context().messages.last?.text == deltas)
        }
    }
}

extension [ChappieJSONValue] {
    /// All items as one JSON text.
    fileprivate var jsonDescription: String { ChappieJSONValue.array(self).jsonString }
}
