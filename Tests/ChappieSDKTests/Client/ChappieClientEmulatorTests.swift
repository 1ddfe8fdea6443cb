import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieCore

@Suite("Client against the emulator")
struct ChappieClientEmulatorTests {
    @Test("send returns the scripted reply and the request follows the backend's rules")
    func sendFollowsRules() async throws {
        try await withSignedInClient { emulator, client, _ in
            let reply = try await client.send("Hello there")
            #expect(reply.contains("Hello there"))
            let request = try #require(await responseRequests(emulator).first)
            let body = try json(request)
            let context = await client.context()
            #expect(body["store"] == false)
            #expect(body["stream"] == true)
            #expect(body["model"] == "gpt-5.5")
            #expect(body["prompt_cache_key"]?.stringValue == context.threadID)
            #expect(body["instructions"]?.stringValue == ChappieHarness.defaultInstructions)
            #expect(body["max_output_tokens"] == nil)
            let input = try #require(body["input"]?.arrayValue)
            #expect(input.first?["role"] == "developer")
            #expect(input.last?["role"] == "user")
            #expect(input.allSatisfy { $0["id"] == nil })
            #expect(request.header("session-id") == context.threadID)
            #expect(request.header("thread-id") == context.threadID)
            #expect(request.header("session_id") == nil, "underscore headers are dropped by proxies such as nginx")
            #expect(request.header("ChatGPT-Account-ID") == "acct-emulator-0001" || request.header("ChatGPT-Account-ID") != nil)
            #expect(request.header("originator") == "chappie_sdk")
            #expect(request.header("User-Agent")?.hasPrefix("chappie_sdk/") == true)
            #expect(request.header("Authorization")?.hasPrefix("Bearer ") == true)
        }
    }

    @Test("the full transcript is sent on the next turn, harness first")
    func fullTranscript() async throws {
        try await withSignedInClient { emulator, client, _ in
            let first = try await client.send("first question")
            _ = try await client.send("second question")
            let body = try json(try #require(await responseRequests(emulator).last))
            let input = try #require(body["input"]?.arrayValue)
            let texts = input.compactMap { $0["content"]?.arrayValue?.first?["text"]?.stringValue }
            #expect(texts.count == 4)
            #expect(texts[1] == "first question")
            #expect(texts[2] == first)
            #expect(input[2]["content"]?.arrayValue?.first?["type"] == "output_text")
            #expect(texts[3] == "second question")
            #expect(await client.context().messageCount == 4)
        }
    }

    @Test("stream delivers the text as several deltas, then completed with usage")
    func streamDeltas() async throws {
        try await withSignedInClient { _, client, _ in
            var deltas: [String] = []
            var completed: ChappieResponse?
            var sawUsage = false
            for try await event in client.stream("stream this please") {
                switch event {
                case .textDelta(let text): deltas.append(text)
                case .completed(let response): completed = response
                case .usageLimits: sawUsage = true
                default: break
                }
            }
            let response = try #require(completed)
            #expect(deltas.count > 1)
            #expect(deltas.joined() == response.outputText)
            #expect(response.id.hasPrefix("resp_"))
            #expect((response.usage?.totalTokens ?? 0) > 0)
            #expect(sawUsage)
        }
    }

    @Test("fast mode asks for low reasoning effort")
    func fastMode() async throws {
        try await withSignedInClient { emulator, client, _ in
            _ = try await client.send(.user("quick", fastMode: true))
            let body = try json(try #require(await responseRequests(emulator).first))
            #expect(body["reasoning"]?["effort"] == "low")
        }
    }

    @Test("an expired access token is refreshed and the request retried once with the new header")
    func unauthorizedRetry() async throws {
        try await withSignedInClient { emulator, client, _ in
            await emulator.expireAccessTokens()
            let firstToken = try #require(await emulator.recordedRequests().last?.header("Authorization") ?? "x")
            let reply = try await client.send("after expiry")
            #expect(reply.contains("after expiry"))
            #expect(await emulator.refreshGrantsServed == 1)
            let attempts = await responseRequests(emulator)
            #expect(attempts.count == 2)
            #expect(attempts[0].header("Authorization") != attempts[1].header("Authorization"))
            _ = firstToken
        }
    }

    @Test("a revoked refresh token turns a 401 into reauthenticationRequired, and the session notices")
    @MainActor
    func reauthentication() async throws {
        try await withSignedInClient { emulator, client, configuration in
            let session = ChappieAuthSession(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            await session.reload()
            #expect(session.state == .signedIn)
            var updates = session.updates.makeAsyncIterator()
            await emulator.revokeAllAccessTokens()
            await emulator.revokeAllRefreshTokens()
            let error = await #expect(throws: ChappieClientError.self) { try await client.send("hi") }
            #expect(error?.requiresReauthentication == true)
            while let snapshot = await updates.next(), snapshot.state != .reauthenticationRequired {}
            #expect(session.state == .reauthenticationRequired)
            #expect(session.lastError?.requiresReauthentication == true)
        }
    }

    @Test("backend failures become typed errors", arguments: [
        (ChappieEmulator.ScriptedReply.failed(code: "context_length_exceeded", message: "too long"), ChappieClientError.contextWindowExceeded("too long")),
        (.failed(code: "server_is_overloaded", message: "busy"), .serverOverloaded("busy")),
        (.incomplete(reason: "max_output_tokens"), .responseIncomplete(reason: "max_output_tokens")),
        (.disconnect(afterEvents: 7), .streamEndedBeforeCompletion),
        (.httpError(status: 400, body: #"{"detail":"Unsupported parameter: max_output_tokens"}"#, headers: [:]), .invalidRequest("Unsupported parameter: max_output_tokens")),
        (.httpError(status: 418, body: "teapot", headers: [:]), .httpError(418, "teapot")),
    ])
    func typedFailures(reply: ChappieEmulator.ScriptedReply, expected: ChappieClientError) async throws {
        try await withSignedInClient { emulator, client, _ in
            await emulator.enqueue(reply)
            await #expect(throws: expected) { try await client.send("fail please") }
        }
    }

    @Test("an HTTP error with an empty body names its status once")
    func emptyErrorBody() async throws {
        try await withSignedInClient { emulator, client, _ in
            await emulator.enqueue(.httpError(status: 418, body: "", headers: [:]))
            let error = await #expect(throws: ChappieClientError.self) { try await client.send("fail please") }
            #expect(error?.errorDescription == "The server answered HTTP 418.")
        }
    }

    @Test("a usage-limit 429 is surfaced with plan and reset time and not retried")
    func usageLimit() async throws {
        try await withSignedInClient { emulator, client, _ in
            let body = #"{"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","resets_at":1900000000,"resets_in_seconds":100}}"#
            await emulator.enqueue(.httpError(status: 429, body: body, headers: [:]))
            let error = await #expect(throws: ChappieClientError.self) { try await client.send("hi") }
            guard case .usageLimitReached(let limit) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(limit.plan?.displayName == "Plus")
            #expect(limit.resetsAt == Date(timeIntervalSince1970: 1_900_000_000))
            #expect(await responseRequests(emulator).count == 1)
        }
    }

    @Test("a plain 429 is retried per the back-off policy, honouring Retry-After, then succeeds")
    func rateLimitBackoff() async throws {
        try await withSignedInClient { emulator, client, _ in
            await emulator.enqueue(.httpError(status: 429, body: #"{"error":{"type":"rate_limit_exceeded","message":"slow down"}}"#, headers: ["Retry-After": "3"]))
            await emulator.enqueue(.httpError(status: 429, body: #"{"error":{"message":"slow down"}}"#, headers: [:]))
            let reply = try await client.send("eventually")
            #expect(reply.contains("eventually"))
            #expect(await responseRequests(emulator).count == 3)
        }
    }

    @Test("with back-off disabled a 429 is surfaced as httpError(429)")
    func rateLimitDisabled() async throws {
        try await withSignedInClient(configure: { $0.rateLimitBackoff = .disabled }) { emulator, client, _ in
            await emulator.enqueue(.httpError(status: 429, body: #"{"error":{"message":"slow down"}}"#, headers: [:]))
            await #expect(throws: ChappieClientError.httpError(429, "slow down")) { try await client.send("hi") }
        }
    }

    @Test("a connection dropped before any text is retried transparently")
    func earlyDisconnectRetried() async throws {
        try await withSignedInClient { emulator, client, _ in
            await emulator.enqueue(.disconnect(afterEvents: 2))
            let reply = try await client.send("again")
            #expect(reply.contains("again"))
            #expect(await responseRequests(emulator).count == 2)
        }
    }

    @Test("a 5xx before any output is retried; the user sees one reply")
    func serverErrorRetried() async throws {
        try await withSignedInClient { emulator, client, _ in
            await emulator.enqueue(.httpError(status: 502, body: "bad gateway", headers: [:]))
            let reply = try await client.send("retry me")
            #expect(reply.contains("retry me"))
        }
    }

    @Test("models are sorted by priority and usage parses the windows by duration")
    func modelsAndUsage() async throws {
        try await withSignedInClient { emulator, client, _ in
            let models = try await client.models()
            #expect(!models.isEmpty)
            #expect(models.map(\.priority) == models.map(\.priority).sorted())
            #expect(models.contains { $0.slug == "gpt-5.5" })
            let query = await emulator.recordedRequests().first { $0.path == "/backend-api/codex/models" }?.query
            #expect(query == "client_version=\(ChappieVersion.modelsClientVersion)")
            #expect(models.contains { $0.slug == "gpt-5.6-sol" })
            let filtered = try await client.models(filter: ChappieModelFilter(reasoningLevel: "xhigh"))
            #expect(filtered.allSatisfy { $0.supportedReasoningLevels.contains("xhigh") })
            let usage = try await client.usageLimits()
            #expect(usage.primary?.windowMinutes == 300)
            #expect(usage.secondary?.windowMinutes == 10080)
            #expect(usage.plan?.rawValue == "plus")
            let info = try await client.accountInfo()
            #expect(info.email == "user@example.com")
        }
    }

    @Test("breaking out of a stream cancels the request and the client stays usable")
    func cancellation() async throws {
        try await withSignedInClient { emulator, client, _ in
            await emulator.enqueue(.stall)
            let task = Task {
                for try await _ in client.stream("stall") {}
            }
            // Wait until the request reached the emulator, then cancel.
            while await responseRequests(emulator).isEmpty { await Task.yield() }
            task.cancel()
            // The stalled request must end (the network task is cancelled), not hang.
            _ = await task.result
            let reply = try await client.send("after cancel")
            #expect(reply.contains("after cancel"))
        }
    }

    @Test("not signed in is missingCredential")
    func notSignedIn() async throws {
        try await ChappieTestEmulator.with { _, configuration in
            let client = ChappieClient(configuration: configuration)
            await #expect(throws: ChappieClientError.missingCredential) { try await client.send("hi") }
        }
    }
}

@Suite("Stream outcomes")
struct StreamOutcomeTests {
    @Test("breaking out of a stream after two deltas closes the HTTP connection and sends nothing more")
    func consumerCancellationClosesConnection() async throws {
        try await withSignedInClient { emulator, client, _ in
            await emulator.enqueue(.slowText(String(repeating: "slow text ", count: 40), eventInterval: .milliseconds(50)))
            var deltas = 0
            for try await event in client.stream("drip") {
                if case .textDelta = event { deltas += 1 }
                if deltas == 2 { break }
            }
            let closed = try #require(await emulator.nextClosedStream())
            #expect(closed.path == "/backend-api/codex/responses")
            #expect(closed.duringResponse)
            let reply = try await client.send("still usable")
            #expect(reply.contains("still usable"))
            #expect(await responseRequests(emulator).count == 2)
        }
    }

    @Test("cancelling the consuming task ends its iteration and closes the connection")
    func taskCancellationClosesConnection() async throws {
        try await withSignedInClient { emulator, client, _ in
            await emulator.enqueue(.slowText(String(repeating: "slow text ", count: 40), eventInterval: .milliseconds(50)))
            let (firstDelta, signal) = AsyncStream<Void>.makeStream()
            let task = Task {
                for try await event in client.stream("drip") {
                    if case .textDelta = event { signal.yield() }
                }
            }
            for await _ in firstDelta { break }
            task.cancel()
            _ = await task.result
            let closed = try #require(await emulator.nextClosedStream())
            #expect(closed.duringResponse)
        }
    }

    @Test("cancelling a send throws CancellationError itself, never wrapped, before and during the body")
    func sendCancellation() async throws {
        try await withSignedInClient { emulator, client, _ in
            // before any event: the server stalls after the head
            await emulator.enqueue(.stall)
            let stalled = Task { try await client.send("stall") }
            _ = await emulator.nextRequest(path: "/backend-api/codex/responses")
            stalled.cancel()
            await #expect(throws: CancellationError.self) { try await stalled.value }
            _ = try #require(await emulator.nextClosedStream())
            // in the middle of a slow body (the turn lock makes the second send wait for the first)
            await emulator.enqueue(.slowText(String(repeating: "slow text ", count: 40), eventInterval: .milliseconds(50)))
            let dripping = Task { try await client.send("drip") }
            _ = await emulator.nextRequest(path: "/backend-api/codex/responses")
            dripping.cancel()
            await #expect(throws: CancellationError.self) { try await dripping.value }
            _ = try #require(await emulator.nextClosedStream())
        }
    }

    @Test("signing out stops a request in flight: it throws missingCredential and its connection closes")
    @MainActor
    func signOutStopsRequest() async throws {
        try await withSignedInClient { emulator, client, configuration in
            await emulator.enqueue(.stall)
            let turn = Task { try await client.send("stall until signed out") }
            _ = await emulator.nextRequest(path: "/backend-api/codex/responses")
            try await ChappieAuthSession(configuration: configuration).signOut()
            await #expect(throws: ChappieClientError.missingCredential) { try await turn.value }
            #expect(try #require(await emulator.nextClosedStream()).duringResponse)
            await #expect(throws: ChappieClientError.missingCredential) { try await client.send("after sign-out") }
        }
    }

    @Test("a server that stalls ends the stream with an idle timeout, not a hang")
    func idleTimeout() async throws {
        try await withSignedInClient(configure: { $0.streamIdleTimeout = 1 }) { emulator, client, _ in
            await emulator.enqueue(.stall)
            await #expect(throws: ChappieClientError.idleTimeout(1)) { try await client.send("stall") }
        }
    }

    @Test("an error event inside a 200 stream is a typed failure even if the server keeps the connection open")
    func errorEventInStream() async throws {
        try await withSignedInClient { emulator, client, _ in
            await emulator.enqueue(.failed(code: "insufficient_quota", message: "quota"))
            let error = await #expect(throws: ChappieClientError.self) { try await client.send("x") }
            guard case .usageLimitReached = error else { Issue.record("got \(String(describing: error))"); return }
        }
    }
}
