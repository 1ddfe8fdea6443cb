import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieCore

/// The threads of `ids` that still run in this process (`/proc/self/task/<id>`).
private func runningThreads(_ ids: [Int32]) -> [Int32] {
    ids.filter { FileManager.default.fileExists(atPath: "/proc/self/task/\($0)") }
}

/// The WebSocket upgrades and `response.create` frames the emulator received.
private func socketTraffic(_ emulator: ChappieEmulator) async -> [ChappieEmulator.RecordedRequest] {
    await emulator.recordedRequests().filter { $0.path == "/backend-api/codex/responses" && ($0.method == "GET" || $0.method == "WS") }
}

/// A client's lifetime against the emulator: nothing happens in `init`, the WebSocket is warmed on
/// first use or by ``ChappieClient/prewarm()``, and ``ChappieClient/shutdown()`` ends the running
/// turn, closes the socket and leaves none of the client's threads running.
@Suite("ChappieClient lifetime", .timeLimit(.minutes(1)))
struct ChappieClientLifecycleTests {
    @Test("init sends nothing: no connection and no request before the first call, then the first turn warms the socket")
    func initIsQuiet() async throws {
        try await ChappieTestEmulator.with { emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            let accepted = emulator.connectionsAccepted
            let requests = await emulator.recordedRequests().count
            // given a client whose policy prewarms the WebSocket (the default)
            let client = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            // when a context change (which queues behind any turn or warm-up) has gone through
            await client.clearContext()
            // then nothing reached the emulator
            #expect(emulator.connectionsAccepted == accepted)
            #expect(await emulator.recordedRequests().count == requests)
            // and the first turn warms the socket, then goes over it
            _ = try await client.send("hello")
            let frames = try await webSocketFrames(emulator)
            try #require(frames.count == 2)
            #expect(frames[0]["generate"] == false && frames[1]["generate"] == nil)
            #expect(emulator.connectionsAccepted - accepted == 1, "one socket")
            await client.shutdown()
        }
    }

    @Test("prewarm() opens and warms the socket; the next turn goes over it, incremental")
    func explicitPrewarm() async throws {
        try await ChappieTestEmulator.with(configure: {
            $0.streamingTransportPolicy = ChappieStreamingTransportPolicy(prewarmsWebSocket: false)
        }) { emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            let accepted = emulator.connectionsAccepted
            let client = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            // when
            await client.prewarm()
            // then the socket is open and warmed
            #expect(emulator.connectionsAccepted - accepted == 1)
            let warmed = try await webSocketFrames(emulator)
            try #require(warmed.count == 1)
            #expect(warmed[0]["generate"] == false)
            // and the turn after it uses that socket, on top of the warm-up
            await client.prewarm()
            _ = try await client.send("hello")
            #expect(emulator.connectionsAccepted - accepted == 1, "no second socket")
            let frames = try await webSocketFrames(emulator)
            try #require(frames.count == 2, "a second prewarm() on an open socket sends nothing")
            #expect(frames[1]["previous_response_id"]?.stringValue != nil)
            await client.shutdown()
        }
    }

    @Test("shutdown() closes the WebSocket with 1000, stops the HTTP loop and leaves no thread of the client running")
    func shutdownEndsThreads() async throws {
        try await ChappieTestEmulator.with { emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            let client = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            _ = try await client.send("over the socket")
            _ = try await client.models()  // over HTTP
            let threads = client.threadIDs
            // the libcurl loop and the WebSocket's I/O thread
            #expect(threads.count >= 2)
            #expect(runningThreads(threads) == threads)
            // when
            await client.shutdown()
            // then
            #expect(runningThreads(threads).isEmpty, "threads left: \(runningThreads(threads))")
            let closed = try #require(await emulator.nextClosedStream())
            #expect(closed.transport == .webSocket && closed.closeCode == 1000 && !closed.duringResponse)
            // and a second call returns at once
            await client.shutdown()
        }
    }

    @Test("after shutdown() a turn, a compaction and the model catalog throw clientShutDown, with nothing sent")
    func refusedAfterShutdown() async throws {
        try await withSignedInClient { emulator, client, _ in
            await client.shutdown()
            let requests = await emulator.recordedRequests().count
            await #expect(throws: ChappieClientError.clientShutDown) { try await client.send("too late") }
            await #expect(throws: ChappieClientError.clientShutDown) {
                for try await _ in client.stream("too late") {}
            }
            await #expect(throws: ChappieClientError.clientShutDown) { try await client.compactContext() }
            await #expect(throws: ChappieClientError.clientShutDown) { try await client.models() }
            #expect(await emulator.recordedRequests().count == requests)
            // the context stays readable and changeable
            #expect(await client.clearContext().messages.isEmpty)
            #expect(ChappieClientError.clientShutDown.errorDescription?.contains("new client") == true)
        }
    }

    @Test("shutdown() cancels the running turn: it throws clientShutDown and the context keeps the text shown")
    func shutdownCancelsRunningTurn() async throws {
        try await ChappieTestEmulator.with { emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            await emulator.scriptReplies(.slowText("one two three four five six seven eight", eventInterval: .milliseconds(300)))
            let client = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            var shown = ""
            await #expect(throws: ChappieClientError.clientShutDown) {
                for try await event in client.stream("count") {
                    guard case .textDelta(let delta) = event else { continue }
                    shown += delta
                    // when the first text is on screen
                    await client.shutdown()
                }
            }
            // then
            let messages = await client.context().messages
            #expect(messages.count == 2)
            #expect(messages.last?.isPartial == true)
            #expect(!shown.isEmpty && messages.last?.text.hasPrefix(shown) == true)
        }
    }

    @Test("shutdown() from the client's own tool handler returns at once; the turn ends with clientShutDown")
    func shutdownFromToolHandler() async throws {
        let box = ClientBox()
        let tool = ChappieHostTool(name: "quit", description: "Quit", inputSchema: ["type": "object"], policy: .automatic) { _ in
            await box.client?.shutdown()
            return ChappieToolResult(output: "quitting")
        }
        try await withSignedInClient(tools: [tool]) { emulator, client, _ in
            await box.set(client)
            await emulator.scriptToolCall("quit")
            await #expect(throws: ChappieClientError.clientShutDown) { try await client.send("please quit") }
            // a call from outside waits for the shutdown the handler started
            await client.shutdown()
            await #expect(throws: ChappieClientError.clientShutDown) { try await client.send("after") }
        }
    }

    @Test("ChappieClient.with shuts the client down when the body returns and when it throws")
    func scopedClient() async throws {
        struct Stop: Error {}
        try await ChappieTestEmulator.with(configure: { $0.streamingTransportPolicy = .httpSSEOnly }) { _, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            var kept: [ChappieClient] = []
            let reply = try await ChappieClient.with(configuration: configuration) { client in
                kept.append(client)
                return try await client.send("hello")
            }
            #expect(reply.contains("hello"))
            await #expect(throws: Stop.self) {
                try await ChappieClient.with(configuration: configuration) { client in
                    kept.append(client)
                    throw Stop()
                }
            }
            for client in kept {
                await #expect(throws: ChappieClientError.clientShutDown) { try await client.send("after") }
            }
        }
    }
}
