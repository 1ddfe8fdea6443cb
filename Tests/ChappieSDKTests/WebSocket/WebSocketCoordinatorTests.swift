@testable import ChappieCore
import ChappieSDKTesting
@testable import ChappieTransport
import Foundation
import Testing

private let endpoints = ChappieEndpoints(authIssuer: URL(string: "https://auth.test")!, backend: URL(string: "https://backend.test/backend-api")!)

/// A client with a scripted WebSocket and an HTTP transport that answers with `httpText` over SSE.
private func client(_ connector: ScriptedWebSocketConnector, httpText: [String] = ["over ", "http"],
                    policy: ChappieStreamingTransportPolicy = .default) async throws -> (ChappieClient, ScriptedTransport) {
    let configuration = try await ChappieAuthFixtures.signedIn(ChappieConfiguration(streamingTransportPolicy: policy, endpoints: endpoints))
    let http = ScriptedTransport(replies: [ScriptedTransport.Reply(status: 200, headers: ["content-type": "text/event-stream"],
                                                                   chunks: [sseBody(scriptedEvents(httpText, id: "resp_http"))])])
    return (ChappieClient(configuration: configuration, transport: http, webSockets: connector, timeSource: ChappieVirtualTime().timeSource), http)
}

private func collect(_ stream: AsyncThrowingStream<ChappieStreamEvent, any Error>) async throws -> (deltas: [String], response: ChappieResponse?) {
    var deltas: [String] = []
    var response: ChappieResponse?
    for try await event in stream {
        if case .textDelta(let text) = event { deltas.append(text) }
        if case .completed(let done) = event { response = done }
    }
    return (deltas, response)
}

@Suite("WebSocket streaming coordinator")
struct WebSocketCoordinatorTests {
    @Test("a response streams over the WebSocket with one response.create frame and no HTTP request")
    func happyPath() async throws {
        let connector = ScriptedWebSocketConnector([.events(scriptedEvents(["Hel", "lo"]), then: .open)])
        let (client, http) = try await client(connector)
        let (deltas, response) = try await collect(client.stream("hi"))
        #expect(deltas == ["Hel", "lo"])
        #expect(response?.id == "resp_ws")
        #expect(await http.requests.isEmpty)
        let frame = try #require(await connector.sentFrames.first)
        let json = try ChappieJSONValue(jsonData: Data(frame.utf8))
        #expect(json["type"] == "response.create")
        #expect(json["store"] == false)
        #expect(json["stream"] == nil)
        let headers = try #require(await connector.handshakeHeaders.first)
        #expect(headers.contains { $0.name == "OpenAI-Beta" && $0.value == "responses_websockets=2026-02-06" })
        #expect(headers.contains { $0.name == "Authorization" })
        let threadID = await client.context().threadID
        #expect(headers.contains { $0.name == "session-id" && $0.value == threadID })
        #expect(headers.contains { $0.name == "thread-id" && $0.value == threadID })
        #expect(!headers.contains { $0.name == "session_id" })
    }

    @Test("a drop after text was shown ends the stream before completion: no reconnect, no resend, no HTTP request")
    func dropAfterText() async throws {
        let first = Array(scriptedEvents(["Hello ", "wor"]).prefix(3))
        let connector = ScriptedWebSocketConnector([
            .events(first, then: .close(1006)),
            .events(scriptedEvents(["Hel", "lo w", "orld"]), then: .open),
        ])
        let (client, http) = try await client(connector)
        var deltas: [String] = []
        await #expect(throws: ChappieClientError.streamEndedBeforeCompletion) {
            for try await event in client.stream("hi") { if case .textDelta(let text) = event { deltas.append(text) } }
        }
        #expect(deltas == ["Hello ", "wor"])
        #expect(await connector.connectCount == 1)
        #expect(await connector.sentFrames.count == 1)
        #expect(await http.requests.isEmpty)
        let partial = try #require(await client.context().messages.last)
        #expect(partial.isPartial && partial.text == "Hello wor")
    }

    @Test("after a drop before any text, the reasoning summary the new socket replays is shown once")
    func reasoningReplaySuppressed() async throws {
        let reasoning = #"{"type":"response.reasoning_summary_text.delta","delta":"Thinking"}"#
        let created = try #require(scriptedEvents(["x"]).first)
        let connector = ScriptedWebSocketConnector([
            .events([created, reasoning], then: .close(1006)),
            .events([created, reasoning] + scriptedEvents(["Hello"]).dropFirst(), then: .open),
        ])
        let (client, http) = try await client(connector)
        var summaries: [String] = []
        var text = ""
        for try await event in client.stream("hi") {
            if case .reasoningSummaryDelta(let delta) = event { summaries.append(delta) }
            if case .textDelta(let delta) = event { text += delta }
        }
        #expect(summaries == ["Thinking"])
        #expect(text == "Hello")
        #expect(await connector.connectCount == 2)
        #expect(await http.requests.isEmpty)
    }

    @Test("a 1008 close right after accept falls back to HTTP/SSE for this and every later request")
    func policyCloseIsSticky() async throws {
        let connector = ScriptedWebSocketConnector([.events([], then: .close(1008))])
        let (client, http) = try await client(connector)
        #expect(try await collect(client.stream("one")).deltas.joined() == "over http")
        _ = try? await collect(client.stream("two"))
        #expect(await connector.connectCount == 1)
        #expect(await http.requests.count == 2)
        let body = try #require(await http.requests.first?.jsonBody)
        #expect(body["type"] == nil)
        #expect(body["stream"] == true)
    }

    @Test("426 on the handshake falls back at once and for the session")
    func upgradeRequired() async throws {
        let connector = ScriptedWebSocketConnector([.fail(.handshakeRejected(status: 426))])
        let (client, http) = try await client(connector)
        _ = try await collect(client.stream("one"))
        _ = try? await collect(client.stream("two"))
        #expect(await connector.connectCount == 1)
        #expect(await http.requests.count == 2)
    }

    @Test("a refused upgrade (404, 421) falls back to HTTP at once, for the session, without reconnecting", arguments: [404, 421])
    func refusedUpgradeFallsBack(status: Int) async throws {
        let connector = ScriptedWebSocketConnector([.fail(.handshakeRejected(status: status))])
        let (client, http) = try await client(connector)
        let (deltas, _) = try await collect(client.stream("one"))
        #expect(deltas.joined() == "over http")
        _ = try? await collect(client.stream("two"))
        #expect(await connector.connectCount == 1)
        #expect(await http.requests.count == 2)
    }

    @Test("without fallback, a refused upgrade is reported as its HTTP status with the socket's URL")
    func refusedUpgradeReported() async throws {
        let connector = ScriptedWebSocketConnector([.fail(.handshakeRejected(status: 421))])
        let policy = ChappieStreamingTransportPolicy(fallsBackToHTTPSSE: false)
        let (client, http) = try await client(connector, policy: policy)
        let error = await #expect(throws: ChappieClientError.self) { try await collect(client.stream("one")) }
        guard case .webSocketUpgradeRefused(let status, let url)? = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(status == 421)
        #expect(url == "wss://backend.test/backend-api/codex/responses")
        #expect(error?.errorDescription?.contains("HTTP 421") == true)
        #expect(error?.errorDescription?.contains(url) == true)
        #expect(await connector.connectCount == 1, "a refused upgrade is not retried")
        #expect(await http.requests.isEmpty)
    }

    @Test("a platform without WebSocket support falls back without spending reconnects")
    func unsupported() async throws {
        let connector = ScriptedWebSocketConnector([.fail(.unsupported("WebSockets not supported by libcurl"))])
        let (client, http) = try await client(connector)
        _ = try await collect(client.stream("one"))
        #expect(await connector.connectCount == 1)
        #expect(await http.requests.count == 1)
    }

    @Test("1009 (message too big) sends this request over HTTP but keeps WebSocket for the next")
    func tooBig() async throws {
        let connector = ScriptedWebSocketConnector([.events([], then: .close(1009)), .events(scriptedEvents(["ws"]), then: .open)])
        let (client, http) = try await client(connector)
        #expect(try await collect(client.stream("one")).deltas.joined() == "over http")
        #expect(try await collect(client.stream("two")).deltas.joined() == "ws")
        #expect(await connector.connectCount == 2)
        #expect(await http.requests.count == 1)
    }

    @Test("exhausted reconnects before any text fall back to HTTP/SSE")
    func exhausted() async throws {
        let drop = Array(scriptedEvents(["over "]).prefix(1))
        let connector = ScriptedWebSocketConnector(Array(repeating: .events(drop, then: .close(1006)), count: 3))
        let (client, http) = try await client(connector, policy: ChappieStreamingTransportPolicy(maxWebSocketReconnectionAttempts: 2))
        let (deltas, _) = try await collect(client.stream("one"))
        #expect(deltas == ["over ", "http"])
        #expect(await connector.connectCount == 3)
        #expect(await http.requests.count == 1)
    }

    @Test("without fallback, exhausted reconnects end the stream before completion")
    func exhaustedWithoutFallback() async throws {
        let drop = Array(scriptedEvents(["x"]).prefix(1))
        let connector = ScriptedWebSocketConnector(Array(repeating: .events(drop, then: .close(1006)), count: 2))
        let policy = ChappieStreamingTransportPolicy(maxWebSocketReconnectionAttempts: 1, fallsBackToHTTPSSE: false)
        let (client, http) = try await client(connector, policy: policy)
        await #expect(throws: ChappieClientError.streamEndedBeforeCompletion) { try await collect(client.stream("one")) }
        #expect(await http.requests.isEmpty)
    }

    @Test(".httpSSEOnly never opens a WebSocket")
    func httpOnly() async throws {
        let connector = ScriptedWebSocketConnector([])
        let (client, http) = try await client(connector, policy: .httpSSEOnly)
        _ = try await collect(client.stream("one"))
        #expect(await connector.connectCount == 0)
        #expect(await http.requests.count == 1)
    }

    @Test("codex.rate_limits on the WebSocket is surfaced as usageLimits")
    func rateLimitsEvent() async throws {
        let limits = #"{"type":"codex.rate_limits","plan_type":"plus","rate_limits":{"primary":{"used_percent":42,"window_minutes":300,"reset_at":1700000000},"secondary":null}}"#
        let connector = ScriptedWebSocketConnector([.events([limits] + scriptedEvents(["ok"]), then: .open)])
        let (client, _) = try await client(connector)
        var snapshots: [ChappieUsageLimitSnapshot] = []
        for try await event in client.stream("hi") { if case .usageLimits(let s) = event { snapshots.append(s) } }
        #expect(snapshots.first?.primary?.usedPercent == 42)
    }

    @Test("a usage-limit error event on the WebSocket is usageLimitReached, not a reconnect")
    func usageLimitEvent() async throws {
        let error = #"{"type":"error","status":429,"error":{"type":"usage_limit_reached","message":"limit","plan_type":"pro","resets_at":1900000000}}"#
        let connector = ScriptedWebSocketConnector([.events([error], then: .open)])
        let (client, _) = try await client(connector)
        let thrown = await #expect(throws: ChappieClientError.self) { try await collect(client.stream("hi")) }
        guard case .usageLimitReached(let limit) = thrown else { Issue.record("got \(String(describing: thrown))"); return }
        #expect(limit.plan?.rawValue == "pro")
        #expect(await connector.connectCount == 1)
    }

    @Test("the consumer sees the same event sequence over WebSocket and over SSE")
    func sameEventsOnBothTransports() async throws {
        let events = scriptedEvents(["Same ", "text ", "both ", "ways"])
        let connector = ScriptedWebSocketConnector([.events(events, then: .open)])
        let (wsClient, _) = try await client(connector)
        let (sseClient, _) = try await client(ScriptedWebSocketConnector([]), httpText: ["Same ", "text ", "both ", "ways"], policy: .httpSSEOnly)
        var overWebSocket: [ChappieStreamEvent] = []
        for try await event in wsClient.stream("x") { overWebSocket.append(event) }
        var overSSE: [ChappieStreamEvent] = []
        for try await event in sseClient.stream("x") { overSSE.append(event) }
        func normalized(_ events: [ChappieStreamEvent]) -> [ChappieStreamEvent] {
            events.map { event in
                guard case .completed(var response) = event else { return event }
                response.id = "resp"
                response.transport = nil  // the one field that tells them apart
                return .completed(response)
            }
        }
        #expect(normalized(overWebSocket) == normalized(overSSE))
        #expect(overWebSocket.contains { if case .completed(let response) = $0 { response.transport == .webSocket } else { false } })
        #expect(overSSE.contains { if case .completed(let response) = $0 { response.transport == .httpSSE } else { false } })
    }

    @Test("a request larger than the frame limit goes over HTTP; the socket stays for the next turn")
    func frameLimit() async throws {
        let connector = ScriptedWebSocketConnector([.events(scriptedEvents(["ws"]), then: .open)])
        let (client, http) = try await client(connector)
        let big = try await collect(client.stream(String(repeating: "x", count: WebSocketLimits.maximumFrameBytes)))
        #expect(big.response?.transport == .httpSSE)
        #expect(await http.requests.count == 1)
        await client.clearContext()  // else the next request carries the big message again
        let next = try await collect(client.stream("small"))
        #expect(next.response?.transport == .webSocket)
        #expect(await connector.connectCount == 1)
        #expect(await http.requests.count == 1)
    }
}

@Suite("Replay guard")
struct ReplayGuardTests {
    @Test("a replay split differently into deltas still matches byte for byte, across multi-byte characters")
    func splitsDiffer() throws {
        var guardian = ReplayGuard()
        #expect(try guardian.accept("h€l") == "h€l")
        guardian.beginAttempt()
        #expect(try guardian.accept("h") == nil)
        #expect(try guardian.accept("€") == nil)
        #expect(try guardian.accept("lo🌍") == "o🌍")
    }
}

@Suite("WebSocket on this platform")
struct PlatformWebSocketTests {
    @Test("a WebSocket client that cannot connect here (FoundationNetworking's) falls back to SSE at once and remembers it")
    func realFallback() async throws {
        #if canImport(FoundationNetworking)
        let sink = ChappieInMemoryLogSink()
        try await ChappieTestEmulator.with(configure: { $0.logSink = sink }) { _, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            let client = ChappieClient(configuration: configuration, transport: HTTPTransports.platformDefault(),
                                       webSockets: URLSessionWebSocketConnector(), timeSource: ChappieVirtualTime().timeSource)
            _ = try await client.send("first")
            _ = try await client.send("second")
            let fallbacks = sink.events.filter { $0.message == "websocket.unsupported" }
            #expect(fallbacks.count == 1)
            #expect(!sink.events.contains { $0.message == "websocket.dropped" })
        }
        #endif
    }
}

@Suite("WebSocket silence")
struct WebSocketSilenceTests {
    @Test("a socket that answers the handshake and then sends nothing ends at the idle timeout in HTTP/SSE, text shown once")
    func silentSocket() async throws {
        let connector = ScriptedWebSocketConnector([.events([], then: .open)])
        let configuration = try await ChappieAuthFixtures.signedIn(ChappieConfiguration(endpoints: endpoints, streamIdleTimeout: 1))
        let http = ScriptedTransport(replies: [ScriptedTransport.Reply(status: 200, headers: ["content-type": "text/event-stream"],
                                                                       chunks: [sseBody(scriptedEvents(["over ", "http"], id: "resp_http"))])])
        let client = ChappieClient(configuration: configuration, transport: http, webSockets: connector, timeSource: ChappieVirtualTime().timeSource)
        let (deltas, response) = try await collect(client.stream("hello?"))
        #expect(deltas == ["over ", "http"])
        #expect(response?.id == "resp_http")
        #expect(await connector.connectCount == 1)
    }
}
