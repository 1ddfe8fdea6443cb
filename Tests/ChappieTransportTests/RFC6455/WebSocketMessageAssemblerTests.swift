@testable import ChappieTransport
import Foundation
import Testing

/// Reverses the bytes: a stand-in decompressor that makes a compressed message recognisable.
private final class ReversingInflater: WebSocketMessageInflating {
    func inflate(_ payload: [UInt8], maximumBytes: Int) throws(WebSocketProtocolViolation) -> [UInt8] {
        guard payload.count <= maximumBytes else { throw .tooBig("too big") }
        return payload.reversed()
    }
}

@Suite("WebSocket messages: fragments joined, UTF-8 checked, close frames parsed (RFC 6455 §5.4-5.6, §7.4)")
struct WebSocketMessageAssemblerTests {
    static func frame(_ opcode: WebSocketFrame.Opcode, _ payload: [UInt8], fin: Bool = true, compressed: Bool = false) -> WebSocketFrame {
        WebSocketFrame(opcode: opcode, payload: payload, isFinal: fin, isCompressed: compressed)
    }

    static func events(_ frames: [WebSocketFrame], assembler: WebSocketMessageAssembler = WebSocketMessageAssembler()) throws(WebSocketProtocolViolation) -> [WebSocketMessageAssembler.Event] {
        var assembler = assembler
        var events: [WebSocketMessageAssembler.Event] = []
        for frame in frames {
            if let event = try assembler.accept(frame) { events.append(event) }
        }
        return events
    }

    @Test("A fragmented text with a ping in between, split inside a multi-byte character, is joined")
    func fragments() throws {
        let bytes = Array("héllo wörld".utf8)
        let frames = [
            Self.frame(.text, Array(bytes[0..<2]), fin: false),  // ends inside "é"
            Self.frame(.ping, Array("p".utf8)),
            Self.frame(.continuation, Array(bytes[2..<9]), fin: false),
            Self.frame(.pong, []),
            Self.frame(.continuation, Array(bytes[9...])),
            Self.frame(.binary, [1, 2]),
        ]
        #expect(try Self.events(frames) == [.ping(Array("p".utf8)), .pong([]), .message(.text("héllo wörld")), .message(.binary(Data([1, 2])))])
    }

    @Test("Fragments out of place are protocol errors")
    func fragmentsOutOfPlace() {
        #expect(throws: WebSocketProtocolViolation.protocolError("continuation frame without a message to continue")) {
            _ = try Self.events([Self.frame(.continuation, [])])
        }
        #expect(throws: WebSocketProtocolViolation.protocolError("new data frame inside a fragmented message")) {
            _ = try Self.events([Self.frame(.text, [0x61], fin: false), Self.frame(.text, [0x62])])
        }
    }

    @Test("Text that is not UTF-8 is refused with 1007, also when split across fragments", arguments: [
        [[0xC3, 0x28]], [[0x68, 0xC3], [0x28]], [[0xED, 0xA0, 0x80]], [[0xF4, 0x90, 0x80, 0x80]], [[0xC0, 0xAF]], [[0xE2, 0x82]],
    ] as [[[UInt8]]])
    func invalidUTF8(pieces: [[UInt8]]) {
        let frames = pieces.enumerated().map { index, piece in
            Self.frame(index == 0 ? .text : .continuation, piece, fin: index == pieces.count - 1)
        }
        let error = #expect(throws: WebSocketProtocolViolation.self) { _ = try Self.events(frames) }
        #expect(error?.closeCode == 1007)
    }

    @Test("Valid UTF-8 of every length passes", arguments: ["a", "é", "€", "😀", ""])
    func validUTF8(text: String) throws {
        #expect(try Self.events([Self.frame(.text, Array(text.utf8))]) == [.message(.text(text))])
    }

    @Test("Close frames: no code, a code with a reason, and the codes a peer may not send")
    func closeFrames() throws {
        #expect(try Self.events([Self.frame(.close, [])]) == [.close(code: nil, reason: "")])
        #expect(try Self.events([Self.frame(.close, [0x0F, 0xA0] + Array("bye".utf8))]) == [.close(code: 4000, reason: "bye")])
        #expect(try Self.events([Self.frame(.close, [0x03, 0xF0])]) == [.close(code: 1008, reason: "")])
        for code in [999, 1004, 1005, 1006, 1015, 1016, 2999, 5000] {
            let error = #expect(throws: WebSocketProtocolViolation.self) { _ = try Self.events([Self.frame(.close, [UInt8(code >> 8), UInt8(code & 0xFF)])]) }
            #expect(error?.closeCode == 1002, "code \(code)")
        }
        #expect(throws: WebSocketProtocolViolation.protocolError("close frame with a 1-byte payload")) { _ = try Self.events([Self.frame(.close, [0x03])]) }
        let reason = #expect(throws: WebSocketProtocolViolation.self) { _ = try Self.events([Self.frame(.close, [0x03, 0xE8, 0xFF])]) }
        #expect(reason?.closeCode == 1007)
    }

    @Test("A message over the limit is refused with 1009, whole or in fragments")
    func messageLimit() throws {
        let assembler = WebSocketMessageAssembler(maximumMessageBytes: 10)
        #expect(try Self.events([Self.frame(.text, [UInt8](repeating: 0x61, count: 10))], assembler: assembler).count == 1)
        let whole = #expect(throws: WebSocketProtocolViolation.self) {
            _ = try Self.events([Self.frame(.binary, [UInt8](repeating: 0, count: 11))], assembler: assembler)
        }
        #expect(whole?.closeCode == 1009)
        let split = #expect(throws: WebSocketProtocolViolation.self) {
            _ = try Self.events([Self.frame(.text, [UInt8](repeating: 0x61, count: 6), fin: false), Self.frame(.continuation, [UInt8](repeating: 0x61, count: 5))], assembler: assembler)
        }
        #expect(split?.closeCode == 1009)
    }

    @Test("A compressed message goes through the inflater once, joined from all its fragments")
    func compressedMessage() throws {
        let assembler = WebSocketMessageAssembler(inflater: ReversingInflater())
        let frames = [Self.frame(.text, Array("ol".utf8), fin: false, compressed: true), Self.frame(.continuation, Array("leh".utf8))]
        #expect(try Self.events(frames, assembler: assembler) == [.message(.text("hello"))])
        #expect(throws: WebSocketProtocolViolation.protocolError("compressed message without permessage-deflate")) {
            _ = try Self.events([Self.frame(.text, [0x61], compressed: true)])
        }
    }

    @Test("Frames to events: the same at every chunk boundary of the wire bytes")
    func wireSweep() throws {
        let wire: [UInt8] = [0x01, 0x02, 0x68, 0xC3] + [0x89, 0x01, 0x21] + [0x80, 0x03, 0xA9, 0x21, 0x21] + [0x82, 0x01, 0x00] + [0x88, 0x02, 0x03, 0xE8]
        let expected: [WebSocketMessageAssembler.Event] = [.ping([0x21]), .message(.text("hé!!")), .message(.binary(Data([0]))), .close(code: 1000, reason: "")]
        func run(_ chunks: [ArraySlice<UInt8>]) throws -> [WebSocketMessageAssembler.Event] {
            var decoder = WebSocketFrameDecoder()
            var assembler = WebSocketMessageAssembler()
            var events: [WebSocketMessageAssembler.Event] = []
            for chunk in chunks {
                decoder.feed(chunk)
                while let frame = try decoder.nextFrame() {
                    if let event = try assembler.accept(frame) { events.append(event) }
                }
            }
            return events
        }
        #expect(try run([wire[...]]) == expected)
        #expect(try run(wire.indices.map { wire[$0...$0] }) == expected)
        for split in 0...wire.count { #expect(try run([wire[..<split], wire[split...]]) == expected) }
    }
}
