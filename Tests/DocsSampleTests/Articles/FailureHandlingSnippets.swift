import ChappieSDK
import ChappieSDKTesting
import Foundation
import Testing

// The code of the DocC article "Failure handling" (Sources/ChappieSDK/ChappieSDK.docc), compiled
// here; CatalogSnippetTests checks that each of the article's blocks appears here.

func sendOnceMore(_ text: String, with client: ChappieClient) async throws -> String {
    do {
        return try await client.send(text)
    } catch let error as ChappieClientError {
        print(error.localizedDescription)
        if let hint = error.recoverySuggestion { print(hint) }
        // Try once more when it may work and the wait is short.
        let wait = error.retryAfter ?? .milliseconds(500)
        guard error.isRetryable, wait <= .seconds(30) else { throw error }
        try await Task.sleep(for: wait)
        return try await client.send(text)
    }
}

@Suite("DocC articles: Failure handling")
struct FailureHandlingSnippetTests {
    @Test("a 429 the back-off gave up on is tried once more after printing the message and its hint")
    func retriedOnce() async throws {
        try await DocsEnvironment.run { docs in
            let client = Chappie.client(rateLimitBackoff: .disabled, streamingTransportPolicy: .httpSSEOnly)
            await docs.emulator.scriptReplies(.httpError(status: 429, body: #"{"error":{"message":"slow down"}}"#, headers: [:]))
            let reply = try await sendOnceMore("hello", with: client)
            #expect(reply.contains("hello"))
            #expect(docs.output.text == "The server answered HTTP 429: slow down\nWait a moment and try again.\n")
        }
    }

    @Test("a usage limit an hour away is not waited for: the error is thrown, with the reset in its hint")
    func usageLimitNotWaited() async throws {
        try await DocsEnvironment.run { docs in
            let client = Chappie.client(streamingTransportPolicy: .httpSSEOnly)
            await docs.emulator.scriptReplies(.usageLimitReached(resetsInSeconds: 3600))
            let error = await #expect(throws: ChappieClientError.self) { try await sendOnceMore("hello", with: client) }
            #expect(error?.retryAfter == .seconds(3600))
            #expect(docs.output.text.split(separator: "\n").last?.hasPrefix("Wait until ") == true)
        }
    }
}
