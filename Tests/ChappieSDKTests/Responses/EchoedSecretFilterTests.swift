import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieSDK

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
