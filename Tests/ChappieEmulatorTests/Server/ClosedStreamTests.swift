import ChappieEmulator
import Foundation
import Testing

@Suite("Observing the client close a streaming connection (FAILURE-CASES 38)")
struct ClosedStreamTests {
    static let path = "/backend-api/codex/responses"

    @Test("A client that closes a slow SSE stream mid-way is reported with the events it received")
    func closeMidStream() async throws {
        try await withEmulator(.init(deltaCharacters: 1)) { (emulator, _) async throws in
            // given a slow drip of many events
            let tokens = await emulator.issueTokens()
            await emulator.enqueue(.slowText(String(repeating: "drip ", count: 200), eventInterval: .milliseconds(20)))
            let connection = try RawHTTPConnection(port: emulator.port)
            try connection.postJSON(Self.path, EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken)
            // when the client closes after three events (on the reading thread, so a busy
            // cooperative pool cannot delay the close)
            let received = await offPool { () -> Int in
                defer { connection.closeNow() }
                guard connection.readHead()?.status == 200 else { return 0 }
                return (0..<3).compactMap { _ in connection.readChunk() }.count
            }
            let closed = await within { await emulator.nextClosedStream() }
            // then
            #expect(received == 3)
            let stream = try #require(closed)
            #expect(stream.transport == .httpSSE && stream.path == Self.path)
            #expect(stream.duringResponse && stream.closeCode == nil)
            #expect(stream.messagesSent >= 3 && stream.messagesSent < 900)
        }
    }

    @Test("Closing a stalled stream is reported, a completed stream is not")
    func stalledAndCompleted() async throws {
        try await withEmulator { (emulator, http) async throws in
            let tokens = await emulator.issueTokens()
            // given a stream that completes
            _ = try await http.postJSON(Self.path, EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken)
            // when a stalled stream is closed by the client
            await emulator.enqueue(.stall)
            let connection = try RawHTTPConnection(port: emulator.port)
            try connection.postJSON(Self.path, EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken)
            #expect(await offPool { connection.readHead()?.status } == 200)
            connection.closeNow()
            // then
            let closed = await within { await emulator.nextClosedStream() }
            #expect(closed?.messagesSent == 0)
            #expect(await emulator.closedStreamCount == 1)
        }
    }

    @Test("A WebSocket the client closes mid-response is reported with its close code")
    func webSocketCloseMidResponse() async throws {
        try await withEmulator(.init(deltaCharacters: 1)) { (emulator, _) async throws in
            let tokens = await emulator.issueTokens()
            await emulator.enqueue(.slowText(String(repeating: "drip ", count: 200), eventInterval: .milliseconds(20)))
            let socket = ResponsesWebSocketTests()
            let (connection, _) = try await socket.open(emulator, token: tokens.accessToken)
            connection.writeText(try socket.create([:]))
            // when the client sends close 1001 (going away) after three frames
            let frames = await offPool { () -> Int in
                let count = (0..<3).compactMap { _ in connection.readFrame() }.count
                connection.writeFrame(opcode: 8, [0x03, 0xE9])
                return count
            }
            let closed = await within { await emulator.nextClosedStream() }
            // then
            #expect(frames == 3)
            let stream = try #require(closed)
            #expect(stream.transport == .webSocket && stream.duringResponse)
            #expect(stream.closeCode == 1001)
            #expect(stream.messagesSent >= 3 && stream.messagesSent < 900)
        }
    }

    @Test("A WebSocket closed between responses without a close frame is reported as idle")
    func webSocketEOFBetweenResponses() async throws {
        try await withEmulator { (emulator, _) async throws in
            let tokens = await emulator.issueTokens()
            let socket = ResponsesWebSocketTests()
            let (connection, _) = try await socket.open(emulator, token: tokens.accessToken)
            connection.writeText(try socket.create([:]))
            _ = await offPool { connection.readEvents(until: "response.completed") }
            connection.closeNow()
            let closed = await within { await emulator.nextClosedStream() }
            #expect(closed?.transport == .webSocket)
            #expect(closed?.duringResponse == false)
            #expect(closed?.closeCode == nil)
        }
    }
}
