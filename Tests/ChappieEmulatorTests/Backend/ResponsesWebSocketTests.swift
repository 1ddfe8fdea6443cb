import ChappieEmulator
import Foundation
import Testing

@Suite("Responses over WebSocket (PROTOCOL §6, §12.1)")
struct ResponsesWebSocketTests {
    static let path = "/backend-api/codex/responses"

    /// Opens an upgraded connection; returns it with the 101 response.
    func open(_ emulator: ChappieEmulator, token: String?, beta: Bool = true) async throws -> (RawHTTPConnection, RawHTTPConnection.Response?) {
        let connection = try RawHTTPConnection(port: emulator.port)
        var head = "GET \(Self.path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        head += "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        head += "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
        if beta { head += "OpenAI-Beta: responses_websockets=2026-02-06\r\n" }
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        connection.write(head + "\r\n")
        let response = await offPool { connection.readResponse() }
        return (connection, response)
    }

    func create(_ fields: [String: Any]) throws -> String {
        var frame = EmulatorHTTPClient.responsesBody()
        frame["type"] = "response.create"
        frame.removeValue(forKey: "stream")
        for (key, value) in fields { frame[key] = value }
        return String(decoding: try JSONSerialization.data(withJSONObject: frame), as: UTF8.self)
    }

    @Test("The handshake answers 101 with the RFC 6455 accept value and declines compression")
    func handshake() async throws {
        try await withEmulator { emulator, _ in
            let tokens = await emulator.issueTokens()
            let (_, response) = try await open(emulator, token: tokens.accessToken)
            #expect(response?.status == 101)
            #expect(response?.headers["sec-websocket-accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
            #expect(response?.headers["upgrade"] == "websocket")
            #expect(response?.headers["sec-websocket-extensions"] == nil)
            #expect(response?.headers["x-codex-turn-state"] != nil)
            #expect(response?.headers["x-models-etag"] != nil)
        }
    }

    @Test("The handshake refuses a missing token, a missing beta header, and answers 426 when disabled")
    func handshakeFailures() async throws {
        try await withEmulator { (emulator, http) async throws in
            #expect(try await open(emulator, token: nil).1?.status == 401)
            let tokens = await emulator.issueTokens()
            #expect(try await open(emulator, token: tokens.accessToken, beta: false).1?.status == 400)
            #expect(try await http.get(Self.path, bearer: tokens.accessToken).status == 405)
        }
        try await withEmulator(.init(acceptsWebSockets: false)) { (emulator, _) async throws in
            let tokens = await emulator.issueTokens()
            #expect(try await open(emulator, token: tokens.accessToken).1?.status == 426)
        }
    }

    @Test("A prewarm, an incremental turn on previous_response_id, and a stale id behave as Codex expects")
    func prewarmAndIncremental() async throws {
        try await withEmulator { emulator, _ in
            let tokens = await emulator.issueTokens()
            let (connection, _) = try await open(emulator, token: tokens.accessToken)
            // given a prewarm
            connection.writeText(try create(["generate": false]))
            let prewarm = await offPool { connection.readEvents(until: "response.completed") }.map(\.data)
            #expect(prewarm.map { $0["type"] as? String } == ["codex.rate_limits", "response.created", "response.metadata", "response.completed"])
            let prewarmResponse = try #require(prewarm.last?["response"] as? [String: Any])
            #expect((prewarmResponse["output"] as? [Any])?.isEmpty == true)
            let prewarmID = try #require(prewarmResponse["id"] as? String)
            // when the turn sends only new items on top of it, in two fragments
            let newItems: [[String: Any]] = [["type": "message", "role": "user", "content": [["type": "input_text", "text": "over ws"]]]]
            connection.writeText(try create(["previous_response_id": prewarmID, "input": newItems]), fragmented: true)
            let turn = await offPool { connection.readEvents(until: "response.completed") }.map(\.data)
                .filter { $0["type"] as? String != "response.metadata" }
            // then
            #expect(turn.first?["type"] as? String == "codex.rate_limits")
            #expect(turn.dropFirst().map { $0["sequence_number"] as? Int } == Array(0..<(turn.count - 1)))
            let turnResponse = turn.last?["response"] as? [String: Any]
            #expect(turnResponse?["previous_response_id"] as? String == prewarmID, "an incremental request's response echoes its chain")
            #expect(prewarmResponse["previous_response_id"] is NSNull)
            let text = turn.filter { $0["type"] as? String == "response.output_text.delta" }.compactMap { $0["delta"] as? String }.joined()
            #expect(text == ChappieEmulator.defaultReply(for: "over ws"))
            let usage = (turn.last?["response"] as? [String: Any])?["usage"] as? [String: Any]
            #expect((usage?["input_tokens"] as? Int ?? 0) > 0)
            // and a stale previous id is an error event, not a closed socket
            connection.writeText(try create(["previous_response_id": "resp_stale", "input": newItems]))
            let error = await offPool { connection.readEvents(until: "error") }.map(\.data)
            #expect(error.last?["status"] as? Int == 400)
            #expect((error.last?["error"] as? [String: Any])?["code"] as? String == "previous_response_not_found")
        }
    }

    @Test("Pings are answered, a scripted HTTP error becomes an error event, and close is echoed")
    func controlFramesAndErrors() async throws {
        try await withEmulator { emulator, _ in
            let tokens = await emulator.issueTokens()
            let (connection, _) = try await open(emulator, token: tokens.accessToken)
            connection.writeFrame(opcode: 9, Array("hi".utf8))
            let pong = await offPool { connection.readFrame() }
            #expect(pong?.opcode == 10 && pong?.payload == Array("hi".utf8))
            await emulator.enqueue(.usageLimitReached(resetsInSeconds: 60))
            connection.writeText(try create([:]))
            let events = await offPool { connection.readEvents(until: "error") }.map(\.data)
            #expect(events.last?["status"] as? Int == 429)
            #expect((events.last?["error"] as? [String: Any])?["type"] as? String == "usage_limit_reached")
            #expect((events.last?["headers"] as? [String: Any])?["x-codex-active-limit"] as? String == "codex")
            connection.writeFrame(opcode: 8, [0x03, 0xE8])
            let close = await offPool { connection.readFrame() }
            #expect(close?.opcode == 8)
            #expect(await offPool { connection.isClosedByServer() })
        }
    }

    @Test("The turn state travels in response.metadata after response.created, and an echoed one is kept")
    func turnStateInMetadata() async throws {
        try await withEmulator { emulator, _ in
            let tokens = await emulator.issueTokens()
            let (connection, _) = try await open(emulator, token: tokens.accessToken)
            connection.writeText(try create([:]))
            let first = await offPool { connection.readEvents(until: "response.completed") }.map(\.data)
            let types = first.map { $0["type"] as? String ?? "" }
            let metadataIndex = try #require(types.firstIndex(of: "response.metadata"))
            #expect(types[metadataIndex - 1] == "response.created")
            let state = try #require((first[metadataIndex]["headers"] as? [String: Any])?["x-codex-turn-state"] as? String)
            #expect(state.hasPrefix("ts_"))
            #expect(first[metadataIndex]["response_id"] as? String == (first[metadataIndex - 1]["response"] as? [String: Any])?["id"] as? String)
            // when the next frame of the turn echoes it
            connection.writeText(try create(["client_metadata": ["x-codex-turn-state": state]]))
            let second = await offPool { connection.readEvents(until: "response.completed") }.map(\.data)
            let echoed = second.first { $0["type"] as? String == "response.metadata" }
            #expect((echoed?["headers"] as? [String: Any])?["x-codex-turn-state"] as? String == state)
        }
    }

    @Test("response.interrupt with discard_partial_items ends the streaming response as interrupted and keeps the socket")
    func interrupt() async throws {
        try await withEmulator { emulator, _ in
            let tokens = await emulator.issueTokens()
            let (connection, _) = try await open(emulator, token: tokens.accessToken)
            // The reply stalls after its first events: only the interrupt can end it, however slow the machine.
            await emulator.enqueue(.cut(.text("a long answer that stops half way"), afterEvents: 5, ending: .stall))
            connection.writeText(try create([:]))
            let started = await offPool { connection.readEvents(until: "response.created") }.map(\.data)
            let responseID = try #require(started.first { $0["type"] as? String == "response.created" }.flatMap { ($0["response"] as? [String: Any])?["id"] as? String })
            // when
            connection.writeText(#"{"type":"response.interrupt","response_id":"\#(responseID)","mode":"discard_partial_items"}"#)
            let rest = await offPool { connection.readEvents(until: "response.incomplete") }.map(\.data)
            // then
            let incomplete = try #require(rest.last)
            #expect(incomplete["type"] as? String == "response.incomplete")
            let response = incomplete["response"] as? [String: Any]
            #expect(response?["id"] as? String == responseID)
            #expect((response?["incomplete_details"] as? [String: Any])?["reason"] as? String == "interrupted")
            #expect((response?["output"] as? [Any])?.isEmpty == true)
            #expect(!rest.contains { $0["type"] as? String == "response.completed" })
            // and the socket serves the next request; response.processed is accepted without an answer
            connection.writeText(#"{"type":"response.processed","response_id":"\#(responseID)"}"#)
            connection.writeText(try create([:]))
            let next = await offPool { connection.readEvents(until: "response.completed") }.map(\.data)
            #expect(next.last?["type"] as? String == "response.completed")
            #expect(!next.contains { $0["type"] as? String == "error" })
            let frames = await emulator.recordedRequests().filter { $0.method == "WS" }.compactMap {
                (try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any])?["type"] as? String
            }
            #expect(frames == ["response.create", "response.interrupt", "response.processed", "response.create"])
        }
    }
}
