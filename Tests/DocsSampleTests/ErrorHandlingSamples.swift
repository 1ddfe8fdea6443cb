import ChappieSDK
import ChappieSDKTesting
import Foundation
import Testing

// Samples of https://docs.chappiesdk.com/guides/error-handling, as published. Lines ending in
// `// +test` are not in the docs; lines with `// docs:` differ from them, saying why.

/// "Catching ChappieClientError".
func errorHandlingCatching(client: ChappieClient) async {
    do {
        let reply = try await client.send("Hello")
        print(reply)  // docs: the docs leave `reply` unused, which is a warning
    } catch ChappieClientError.missingCredential {
        // User needs to sign in
        print("sign in")  // +test
    } catch ChappieClientError.usageLimitReached(let limit) {
        print(limit.plan?.displayName ?? "Unknown")
        print("Resets:", limit.resetsAt as Any)
    } catch ChappieClientError.reauthenticationRequired(let message) {
        // Token expired beyond refresh — show sign-in again
        print("sign in again:", message)  // docs: the docs leave `message` unused, which is a warning
    } catch ChappieClientError.httpError(let status, let body) {
        print("HTTP \(status): \(body)")
    } catch ChappieClientError.streamingTransportReplayDiverged(let partial) {
        // Streaming reconnect diverged — show error, partial text may be non-empty
        print("diverged after:", partial)  // docs: the docs leave `partial` unused, which is a warning
    } catch ChappieClientError.toolLoopLimitExceeded(let limit) {
        print("Exceeded \(limit) tool call rounds")
    } catch {
        print(error.localizedDescription)
    }
}

@Suite("Published docs: Error handling")
struct ErrorHandlingSampleTests {
    @Test("a usage limit prints the plan and the reset time")
    func usageLimit() async throws {
        try await DocsEnvironment.run { docs in
            let client = Chappie.client(streamingTransportPolicy: .httpSSEOnly)
            await docs.emulator.scriptReplies(.usageLimitReached(resetsInSeconds: 3600))
            await errorHandlingCatching(client: client)
            let lines = docs.output.text.split(separator: "\n")
            #expect(lines.first == "Plus")
            #expect(lines.last?.hasPrefix("Resets: Optional(") == true)
        }
    }

    @Test("an unexpected status prints as HTTP status: message")
    func httpError() async throws {
        try await DocsEnvironment.run { docs in
            let client = Chappie.client(streamingTransportPolicy: .httpSSEOnly)
            await docs.emulator.scriptReplies(.httpError(status: 418, body: #"{"error":{"message":"teapot"}}"#, headers: [:]))
            await errorHandlingCatching(client: client)
            #expect(docs.output.text.hasPrefix("HTTP 418: "))
            #expect(docs.output.text.contains("teapot"))
        }
    }

    @Test("without a credential the first catch matches")
    func missingCredential() async throws {
        try await DocsEnvironment.run { docs in
            let client = Chappie.client(configuration: ChappieConfiguration(keychainAccount: "nobody"))
            await errorHandlingCatching(client: client)
            #expect(docs.output.text == "sign in\n")
        }
    }

    @Test("too many tool rounds prints the limit")
    func toolLoop() async throws {
        try await DocsEnvironment.run { docs in
            let tool = ChappieHostTool(name: "again", description: "Asks for another round.") { _ in ChappieToolResult(output: "{}") }
            var configuration = ChappieConfiguration()
            configuration.maximumToolRounds = 1
            let client = Chappie.client(configuration: configuration, tools: [tool], streamingTransportPolicy: .httpSSEOnly)
            await docs.emulator.scriptToolCall("again")
            await docs.emulator.scriptToolCall("again")
            await errorHandlingCatching(client: client)
            #expect(docs.output.text == "Exceeded 1 tool call rounds\n")
        }
    }

    @Test("anything else falls through to localizedDescription, which is readable")
    func fallThrough() async throws {
        try await DocsEnvironment.run { docs in
            let client = Chappie.client(streamingTransportPolicy: .httpSSEOnly)
            await docs.emulator.scriptReplies(.incomplete(reason: "max_output_tokens"))
            await errorHandlingCatching(client: client)
            #expect(docs.output.text == "The response ended early: max_output_tokens.\n")
        }
    }
}
