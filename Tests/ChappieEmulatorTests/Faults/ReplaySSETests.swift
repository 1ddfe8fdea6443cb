import ChappieEmulator
import Foundation
import Testing

@Suite("Replaying a recorded SSE body byte for byte (issue 4)")
struct ReplaySSETests {
    /// A recorded-looking body with CRLF, a comment, `data:` without a space, a multi-line
    /// `data`, a multi-byte character, `[DONE]`, and a last event without its blank line.
    static let recorded = Data(
        (": keep-alive\r\n\r\nevent: response.created\r\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\"}}\r\n\r\n"
            + "data:{\"type\":\"response.output_text.delta\",\"delta\":\"h\u{00E9}\"}\n\n"
            + "data: {\"type\":\"response.output_text.delta\",\ndata: \"delta\":\"!\"}\n\ndata: [DONE]\n\n"
            + "data: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\"}}").utf8
    )

    @Test("A replayed body arrives unchanged, cut into chunks exactly at the given offsets")
    func chunksAtOffsets() async throws {
        try await withEmulator { (emulator, _) async throws in
            // given
            let tokens = await emulator.issueTokens()
            let body = Self.recorded
            await emulator.enqueue(.replaySSE(body, chunkOffsets: [200, 5, 17, 0, 99_999]))
            // when
            let connection = try RawHTTPConnection(port: emulator.port)
            try connection.postJSON("/backend-api/codex/responses", EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken)
            let (head, chunks) = await offPool { () -> ((status: Int, headers: [String: String])?, [Data]) in
                let head = connection.readHead()
                var chunks = [Data]()
                while let chunk = connection.readChunk() { chunks.append(chunk) }
                return (head, chunks)
            }
            // then
            #expect(head?.status == 200)
            #expect(head?.headers["content-type"]?.hasPrefix("text/event-stream") == true)
            #expect(chunks.map(\.count) == [5, 12, 183, body.count - 200])
            #expect(chunks.reduce(Data(), +) == body)
        }
    }

    @Test("A standing replay answers every /responses call, and a queued reply still comes first")
    func standingReplay() async throws {
        let body = Self.recorded
        try await withEmulator(.init(standingReply: .replaySSE(body, chunkOffsets: [10]))) { emulator, http in
            let tokens = await emulator.issueTokens()
            await emulator.enqueue(.text("queued"))
            var bodies = [Data]()
            for _ in 0..<3 {
                bodies.append(try await http.postJSON("/backend-api/codex/responses", EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken).body)
            }
            #expect(bodies[0] != body)
            #expect(bodies[1] == body && bodies[2] == body)
        }
    }

    @Test("Over a WebSocket each replayed event's data becomes one text frame")
    func replayOverWebSocket() async throws {
        try await withEmulator { (emulator, _) async throws in
            let tokens = await emulator.issueTokens()
            await emulator.enqueue(.replaySSE(Self.recorded, chunkOffsets: [3]))
            let socket = ResponsesWebSocketTests()
            let (connection, _) = try await socket.open(emulator, token: tokens.accessToken)
            connection.writeText(try socket.create([:]))
            let frames = await offPool { () -> [String] in
                var texts = [String]()
                while texts.last?.contains("response.completed") != true, let frame = connection.readFrame(), frame.opcode == 1 {
                    texts.append(String(decoding: frame.payload, as: UTF8.self))
                }
                return texts
            }
            #expect(frames.count == 5)
            #expect(frames.first?.contains("codex.rate_limits") == true)
            #expect(frames.dropFirst().first == #"{"type":"response.created","response":{"id":"resp_1"}}"#)
            #expect(frames.dropFirst(2).first == "{\"type\":\"response.output_text.delta\",\"delta\":\"h\u{00E9}\"}")
            #expect(frames.dropFirst(3).first == "{\"type\":\"response.output_text.delta\",\n\"delta\":\"!\"}")
        }
    }
}
