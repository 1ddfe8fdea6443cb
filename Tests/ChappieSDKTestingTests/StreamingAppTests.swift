import ChappieSDK
import ChappieSDKTesting
import Testing

/// Streaming as an app sees it, with scripted model replies.
@Suite("App tests: streaming")
struct StreamingAppTests {
    @Test("a scripted reply streams as several deltas and completes with the whole text")
    func scriptedText() async throws {
        try await ChappieTestEmulator.withSignedIn { app in
            // given
            let text = "Here is a scripted answer that is long enough to arrive in several pieces."
            await app.emulator.scriptReplies(.text(text))
            // when
            var deltas: [String] = []
            var completed: ChappieResponse?
            for try await event in app.client.stream("anything") {
                switch event {
                case .textDelta(let delta): deltas.append(delta)
                case .completed(let response): completed = response
                default: break
                }
            }
            // then
            #expect(deltas.count > 1)
            #expect(deltas.joined() == text)
            #expect(completed?.outputText == text)
        }
    }

    @Test("scripted replies are used in order, one per turn")
    func repliesInOrder() async throws {
        try await ChappieTestEmulator.withSignedIn { app in
            await app.emulator.scriptReplies(.text("first"), .text("second"))
            let first = try await app.client.send("one")
            let second = try await app.client.send("two")
            #expect([first, second] == ["first", "second"])
        }
    }

    @Test("a scripted server failure ends the stream with a typed error")
    func scriptedFailure() async throws {
        try await ChappieTestEmulator.withSignedIn { app in
            await app.emulator.scriptReplies(.failed(code: "server_error", message: "scripted failure"))
            let error = await #expect(throws: ChappieClientError.self) {
                for try await _ in app.client.stream("anything") {}
            }
            guard case .responseFailed(let code, let message)? = error else {
                Issue.record("unexpected error \(String(describing: error))")
                return
            }
            #expect(code == "server_error")
            #expect(message.contains("scripted failure"))
        }
    }

    @Test("a scripted usage limit surfaces as usageLimitReached with the reset time")
    func scriptedUsageLimit() async throws {
        try await ChappieTestEmulator.withSignedIn { app in
            await app.emulator.scriptReplies(.usageLimitReached(resetsInSeconds: 600))
            let error = await #expect(throws: ChappieClientError.self) { try await app.client.send("anything") }
            guard case .usageLimitReached(let limit)? = error else {
                Issue.record("unexpected error \(String(describing: error))")
                return
            }
            #expect(limit.resetsAt != nil)
        }
    }

    @Test("a scripted early disconnect is a truncated stream, not a completed one")
    func scriptedDisconnect() async throws {
        try await ChappieTestEmulator.withSignedIn { app in
            // Enough cuts for every attempt: six on the WebSocket (five reconnects), then three over
            // HTTP/SSE after the fallback (two retries).
            for _ in 0..<9 { await app.emulator.scriptReplies(.disconnect(afterEvents: 3)) }
            let error = await #expect(throws: ChappieClientError.self) {
                for try await _ in app.client.stream("anything") {}
            }
            #expect(error == .streamEndedBeforeCompletion, "got \(String(describing: error))")
        }
    }
}
