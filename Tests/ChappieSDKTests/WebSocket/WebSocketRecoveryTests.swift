import ChappieEmulator
@testable import ChappieCore
import ChappieSDKTesting
@testable import ChappieTransport
import Foundation
import Testing

/// The WebSocket upgrades (`GET /backend-api/codex/responses`) the emulator received.
private func handshakes(_ emulator: ChappieEmulator) async -> Int {
    await emulator.recordedRequests().filter { $0.method == "GET" && $0.path == "/backend-api/codex/responses" }.count
}

/// How the WebSocket recovers, against the emulator over loopback: a 401 on every upgrade, a
/// half-open socket, a drop after text was shown, a refused handshake without the HTTP fallback.
@Suite("WebSocket recovery", .timeLimit(.minutes(1)))
struct WebSocketRecoveryTests {
    @MainActor
    @Test("a 401 on every upgrade while HTTP takes the token: one refresh, the reply over HTTP/SSE, still signed in",
          arguments: [true, false])
    func unauthorizedUpgrade(prewarms: Bool) async throws {
        try await ChappieTestEmulator.with(configure: { $0.streamingTransportPolicy = ChappieStreamingTransportPolicy(prewarmsWebSocket: prewarms) }) {
            emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            for _ in 0..<8 { await emulator.enqueueWebSocketFault(.refuseHandshake(status: 401)) }
            let client = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            // when
            let reply = try await client.send("hello over http")
            let again = try await client.send("and again")
            // then
            #expect(reply.contains("hello over http") && again.contains("and again"))
            #expect(await handshakes(emulator) == 2, "the upgrade and its one retry after the refresh")
            #expect(await emulator.refreshGrantsServed == 1)
            #expect(await responseRequests(emulator).count == 2, "both turns over HTTP/SSE")
            let session = ChappieAuthSession(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            await session.reload()
            #expect(session.state == .signedIn)
        }
    }

    @Test("a half-open socket (the peer stops reading) with a large request: two sends end at their deadline, then HTTP/SSE",
          arguments: [true, false])
    func halfOpenSocket(fallsBack: Bool) async throws {
        let sink = ChappieInMemoryLogSink()
        try await ChappieTestEmulator.with(configure: {
            $0.streamingTransportPolicy = ChappieStreamingTransportPolicy(fallsBackToHTTPSSE: fallsBack, prewarmsWebSocket: false)
            $0.logSink = sink
        }) { emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            for _ in 0..<3 { await emulator.enqueueWebSocketFault(.stopReading) }
            let client = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            // A request larger than the TCP buffers of a connection nobody reads (~6 MB in the field).
            let large = String(repeating: "x", count: 8 << 20)
            // The send deadline fires at once (no real time passes); every other deadline waits as usual.
            let sendDeadline = Duration.seconds(interval: RequestPolicy(configuration: configuration).webSocketSendTimeout)
            let fired = LockedBox(0)
            let outcome = await HTTPDeadline.sleep.withValue({ duration in
                guard duration == sendDeadline else { return try await Task.sleep(for: duration) }
                fired.withLock { $0 += 1 }
            }) { () async -> Result<String, any Error> in
                do { return .success(try await client.send(large)) } catch { return .failure(error) }
            }
            // then
            #expect(fired.withLock { $0 } == 2)
            #expect(await handshakes(emulator) == 2, "two sockets, one send on each")
            #expect(sink.events.filter { $0.message == "websocket.send_timed_out" }.count == 2)
            if fallsBack {
                #expect(try outcome.get().hasPrefix("Hello from the Chappie emulator"))
                #expect(await responseRequests(emulator).count == 1)
            } else {
                guard case .failure(ChappieClientError.network(let message, let reached)) = outcome else {
                    Issue.record("unexpected \(outcome)")
                    return
                }
                #expect(message.contains("60 seconds") && !reached)
                #expect(await responseRequests(emulator).isEmpty)
            }
        }
    }

    @Test("a socket that drops after text was shown ends the turn as HTTP/SSE does: streamEndedBeforeCompletion, no resend",
          arguments: [ChappieEmulator.StreamCut.close, .reset, .webSocketClose(code: 1011, reason: "upstream")])
    func dropAfterText(cut: ChappieEmulator.StreamCut) async throws {
        try await ChappieTestEmulator.with(configure: { $0.streamingTransportPolicy = ChappieStreamingTransportPolicy(prewarmsWebSocket: false) }) {
            emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            await emulator.enqueue(.cut(.text("Hello there, this answer is long enough to be cut"), afterEvents: 5, ending: cut))
            let client = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            // when
            var shown = ""
            let error = await #expect(throws: ChappieClientError.self) {
                for try await event in client.stream("tell me") { if case .textDelta(let text) = event { shown += text } }
            }
            // then
            #expect(error == .streamEndedBeforeCompletion)
            #expect(!shown.isEmpty)
            #expect(await handshakes(emulator) == 1, "no reconnect")
            #expect(try await webSocketFrames(emulator).count == 1, "the request was sent once")
            #expect(await responseRequests(emulator).isEmpty, "nor over HTTP")
            let last = try #require(await client.context().messages.last)
            #expect(last.isPartial && last.text == shown)
        }
    }

    @MainActor
    @Test("without the HTTP fallback a refused upgrade is tried no more than the reconnect policy allows, a 4xx once",
          arguments: [(503, 6), (403, 1), (401, 2)])
    func refusedWithoutFallback(status: Int, expectedHandshakes: Int) async throws {
        // The `chappie --transport websocket` policy, warm-up included.
        try await ChappieTestEmulator.with(configure: {
            $0.streamingTransportPolicy = ChappieStreamingTransportPolicy(prefersWebSocket: true, fallsBackToHTTPSSE: false)
        }) { emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            for _ in 0..<20 { await emulator.enqueueWebSocketFault(.refuseHandshake(status: status)) }
            let client = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            // when
            let error = await #expect(throws: ChappieClientError.self) { try await client.send("hi") }
            // then
            guard case .webSocketUpgradeRefused(let refused, _)? = error else {
                Issue.record("unexpected \(String(describing: error))")
                return
            }
            #expect(refused == status)
            #expect(await handshakes(emulator) == expectedHandshakes)
            #expect(await emulator.refreshGrantsServed == (status == 401 ? 1 : 0))
            #expect(await responseRequests(emulator).isEmpty)
            let session = ChappieAuthSession(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            await session.reload()
            #expect(session.state == .signedIn, "the WebSocket alone never ends the sign-in")
        }
    }
}
