import ChappieEmulator
import Foundation
import Testing

@Suite("WebSocket faults and framing answers (PROTOCOL §6, FAILURE-CASES 24, 25, issue 5)")
struct ResponsesWebSocketFaultTests {
    let socket = ResponsesWebSocketTests()

    @Test("A queued handshake fault refuses one connection with 426; the next one upgrades")
    func refuseOnce() async throws {
        try await withEmulator { (emulator, _) async throws in
            let tokens = await emulator.issueTokens()
            await emulator.enqueueWebSocketFault(.refuseHandshake(status: 426))
            #expect(try await socket.open(emulator, token: tokens.accessToken).1?.status == 426)
            #expect(try await socket.open(emulator, token: tokens.accessToken).1?.status == 101)
        }
    }

    @Test("Close right after accept sends 1008 with an empty reason before any event")
    func closeAfterAccept() async throws {
        try await withEmulator { (emulator, _) async throws in
            let tokens = await emulator.issueTokens()
            await emulator.enqueueWebSocketFault(.policyViolation)
            let (connection, response) = try await socket.open(emulator, token: tokens.accessToken)
            #expect(response?.status == 101)
            let close = await offPool { connection.readCloseCode() }
            #expect(close?.code == 1008 && close?.reason == "")
        }
    }

    @Test("Drop after accept closes the socket without a close frame")
    func dropAfterAccept() async throws {
        try await withEmulator { (emulator, _) async throws in
            let tokens = await emulator.issueTokens()
            await emulator.enqueueWebSocketFault(.dropAfterAccept)
            let (connection, response) = try await socket.open(emulator, token: tokens.accessToken)
            #expect(response?.status == 101)
            #expect(await offPool { connection.readFrame() } == nil)
            #expect(!connection.wasReset)
        }
    }

    @Test("A mid-stream cut drops without a close frame, resets, or closes with the given code", arguments: [
        ChappieEmulator.StreamCut.close, .reset, .webSocketClose(code: 1011, reason: "upstream"),
    ])
    func cutMidStream(_ cut: ChappieEmulator.StreamCut) async throws {
        try await withEmulator { (emulator, _) async throws in
            let tokens = await emulator.issueTokens()
            await emulator.enqueue(.cut(.text("a long enough answer"), afterEvents: 4, ending: cut))
            let (connection, _) = try await socket.open(emulator, token: tokens.accessToken)
            connection.writeText(try socket.create([:]))
            let frames = await offPool { () -> [(opcode: UInt8, payload: [UInt8])] in
                var frames = [(opcode: UInt8, payload: [UInt8])]()
                while let frame = connection.readFrame() {
                    frames.append(frame)
                    if frame.opcode == 8 { break }
                }
                return frames
            }
            // The turn state's response.metadata frame is not a Responses stream event.
            let texts = frames.filter { $0.opcode == 1 && !String(decoding: $0.payload, as: UTF8.self).contains("\"response.metadata\"") }
            #expect(texts.count <= 5)
            #expect(!texts.contains { String(decoding: $0.payload, as: UTF8.self).contains("response.completed") })
            switch cut {
            case .close:
                #expect(texts.count == 5 && frames.count == 6 && !connection.wasReset)
            case .reset:
                #expect(frames.allSatisfy { $0.opcode == 1 } && connection.wasReset)
            case .webSocketClose:
                #expect(frames.last?.opcode == 8 && frames.last?.payload.prefix(2) == [0x03, 0xF3])
            case .stall, .stallIgnoringInterrupts:
                Issue.record("a stalled socket is not among this test's arguments")
            }
        }
    }

    @Test("The connection-limit error event keeps the socket open for the next request")
    func connectionLimit() async throws {
        try await withEmulator { (emulator, _) async throws in
            let tokens = await emulator.issueTokens()
            await emulator.enqueue(.webSocketConnectionLimitReached)
            let (connection, _) = try await socket.open(emulator, token: tokens.accessToken)
            connection.writeText(try socket.create([:]))
            let events = await offPool { connection.readEvents(until: "error") }.map(\.data)
            #expect(events.map { $0["type"] as? String } == ["codex.rate_limits", "error"])
            #expect((events.last?["error"] as? [String: Any])?["code"] as? String == "websocket_connection_limit_reached")
            #expect(events.last?["status"] as? Int == 400)
            connection.writeText(try socket.create([:]))
            #expect(await offPool { connection.readEvents(until: "response.completed") }.last?.type == "response.completed")
        }
    }

    @Test("A frame of 16 MiB or more is closed with 1009; one byte less is read")
    func messageTooBig() async throws {
        try await withEmulator { (emulator, _) async throws in
            let tokens = await emulator.issueTokens()
            let limit = 16 * 1024 * 1024
            // given a text frame of exactly 16 MiB
            let (connection, _) = try await socket.open(emulator, token: tokens.accessToken)
            let big = [UInt8](repeating: 0x20, count: limit)
            let close = await offPool { () -> (code: UInt16?, reason: String)? in
                connection.writeFrame(opcode: 1, big, mask: [0, 0, 0, 0])
                return connection.readCloseCode()
            }
            #expect(close?.code == 1009)
            // given a message one byte under the limit in two fragments: it is parsed (and rejected as JSON)
            let (second, _) = try await socket.open(emulator, token: tokens.accessToken)
            let events = await offPool { () -> [SSEEvent] in
                second.writeFrame(opcode: 1, [UInt8](repeating: 0x20, count: limit / 2), final: false, mask: [0, 0, 0, 0])
                second.writeFrame(opcode: 0, [UInt8](repeating: 0x20, count: limit / 2 - 1), mask: [0, 0, 0, 0])
                return second.readEvents(until: "error")
            }
            #expect((events.last?.data["error"] as? [String: Any])?["code"] as? String == "invalid_json")
        }
    }

    @Test("A 64-bit frame length with its top bit set is refused with 1002, not a crash (found by fuzzing)")
    func hugeLength() async throws {
        try await withEmulator { (emulator, _) async throws in
            let tokens = await emulator.issueTokens()
            let (connection, _) = try await socket.open(emulator, token: tokens.accessToken)
            connection.write([0x81, 0xFF] + [UInt8](repeating: 0xFF, count: 8) + [0x44, 0x65, 0x81, 0xFF])
            #expect(await offPool { connection.readCloseCode() }?.code == 1002)
            // and the emulator still serves others
            let (next, _) = try await socket.open(emulator, token: tokens.accessToken)
            next.writeText(try socket.create([:]))
            #expect(await offPool { next.readEvents(until: "response.completed") }.last?.type == "response.completed")
        }
    }

    @Test("A binary frame is refused with 1003 and an unmasked frame with 1002")
    func binaryAndUnmasked() async throws {
        try await withEmulator { (emulator, _) async throws in
            let tokens = await emulator.issueTokens()
            let (binary, _) = try await socket.open(emulator, token: tokens.accessToken)
            binary.writeFrame(opcode: 2, [1, 2, 3])
            #expect(await offPool { binary.readCloseCode() }?.code == 1003)
            let (unmasked, _) = try await socket.open(emulator, token: tokens.accessToken)
            unmasked.writeFrame(opcode: 1, Array("{}".utf8), masked: false)
            #expect(await offPool { unmasked.readCloseCode() }?.code == 1002)
        }
    }
}
