@testable import ChappieTransport
import Foundation
import Testing

@Suite("WebSocket frames: encoding, decoding at every chunk boundary, and what the decoder refuses (RFC 6455 §5)")
struct WebSocketFrameCodecTests {
    /// Server frames from RFC 6455 §5.7 and around the length boundaries.
    static let serverFrames: [(bytes: [UInt8], frame: WebSocketFrame)] = [
        ([0x81, 0x05] + Array("Hello".utf8), WebSocketFrame(opcode: .text, payload: Array("Hello".utf8))),
        ([0x01, 0x03] + Array("Hel".utf8), WebSocketFrame(opcode: .text, payload: Array("Hel".utf8), isFinal: false)),
        ([0x89, 0x05] + Array("Hello".utf8), WebSocketFrame(opcode: .ping, payload: Array("Hello".utf8))),
        ([0x80, 0x02] + Array("lo".utf8), WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8))),
        ([0x82, 0x7D] + [UInt8](repeating: 7, count: 125), WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 7, count: 125))),
        ([0x82, 0x7E, 0x01, 0x00] + [UInt8](repeating: 1, count: 256), WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 1, count: 256))),
        ([0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0] + [UInt8](repeating: 2, count: 65_536),
         WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 2, count: 65_536))),
        ([0x88, 0x02, 0x03, 0xE8], WebSocketFrame(opcode: .close, payload: [0x03, 0xE8])),
        ([0x8A, 0x00], WebSocketFrame(opcode: .pong, payload: [])),
    ]

    static func decodeAll(_ chunks: [ArraySlice<UInt8>], decoder: WebSocketFrameDecoder = WebSocketFrameDecoder()) throws -> [WebSocketFrame] {
        var decoder = decoder
        var frames: [WebSocketFrame] = []
        for chunk in chunks {
            decoder.feed(chunk)
            while let frame = try decoder.nextFrame() { frames.append(frame) }
        }
        #expect(decoder.bufferedByteCount == 0)
        return frames
    }

    @Test("The masked \"Hello\" of RFC 6455 §5.7 encodes byte for byte")
    func rfcMaskedExample() {
        let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)), maskingKey: [0x37, 0xFA, 0x21, 0x3D])
        #expect(bytes == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
    }

    @Test("Client frames use the shortest length form and always set MASK", arguments: [
        (0, [0x80]), (125, [0x80 | 125]), (126, [0x80 | 126, 0x00, 0x7E]), (65_535, [0x80 | 126, 0xFF, 0xFF]),
        (65_536, [0x80 | 127, 0, 0, 0, 0, 0, 1, 0, 0]),
    ] as [(Int, [UInt8])])
    func lengthForms(count: Int, header: [UInt8]) {
        let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 0, count: count)), maskingKey: [1, 2, 3, 4])
        #expect(Array(bytes[1..<(1 + header.count)]) == header)
        #expect(bytes.count == 1 + header.count + 4 + count)
        #expect(bytes[0] == 0x82)
    }

    @Test("RSV1 marks a compressed frame and FIN can be cleared")
    func flags() {
        let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: [], isFinal: false, isCompressed: true), maskingKey: [0, 0, 0, 0])
        #expect(bytes[0] == 0x41)
    }

    @Test("Masking twice restores the payload at every length around the word size")
    func maskingIsAnInvolution() {
        for count in 0...40 {
            let original = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37) }
            var bytes = original
            bytes.withUnsafeMutableBytes { WebSocketFrameEncoder.mask($0, key: [0xDE, 0xAD, 0xBE, 0xEF]) }
            if count > 0 { #expect(bytes != original) }
            #expect(bytes.enumerated().allSatisfy { $0.element == original[$0.offset] ^ [0xDE, 0xAD, 0xBE, 0xEF][$0.offset % 4] })
            bytes.withUnsafeMutableBytes { WebSocketFrameEncoder.mask($0, key: [0xDE, 0xAD, 0xBE, 0xEF]) }
            #expect(bytes == original)
        }
    }

    @Test("Two encodings of one frame use different masking keys")
    func freshMask() {
        let frame = WebSocketFrame(opcode: .text, payload: Array("same".utf8))
        let keys = Set((0..<8).map { _ in Array(WebSocketFrameEncoder.encode(frame)[2..<6]) })
        #expect(keys.count > 1)
    }

    @Test("Decoding gives the same frames whole, one byte at a time, and split at every index")
    func chunkBoundaries() throws {
        let small = Self.serverFrames.filter { $0.bytes.count < 1000 }
        let stream = small.flatMap(\.bytes)
        let expected = small.map(\.frame)
        #expect(try Self.decodeAll([stream[...]]) == expected)
        #expect(try Self.decodeAll(stream.indices.map { stream[$0...$0] }) == expected)
        for split in 0...stream.count {
            #expect(try Self.decodeAll([stream[..<split], stream[split...]]) == expected)
        }
        let large = Self.serverFrames.map(\.bytes).flatMap { $0 }
        for split in stride(from: 0, through: large.count, by: 997) {
            #expect(try Self.decodeAll([large[..<split], large[split...]]) == Self.serverFrames.map(\.frame))
        }
    }

    @Test("The decoder refuses what a server must not send, with the close code", arguments: [
        ([0x81, 0x85, 1, 2, 3, 4, 0, 0, 0, 0, 0], 1002),  // masked
        ([0xA1, 0x00], 1002),  // RSV2
        ([0x91, 0x00], 1002),  // RSV3
        ([0xC1, 0x00], 1002),  // RSV1 without permessage-deflate
        ([0x83, 0x00], 1002),  // reserved data opcode
        ([0x8B, 0x00], 1002),  // reserved control opcode
        ([0x09, 0x00], 1002),  // fragmented ping
        ([0x89, 0x7E, 0x00, 0x7E], 1002),  // ping longer than 125
        ([0x88, 0x7E, 0x00, 0xC8], 1002),  // close longer than 125
        ([0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 1], 1002),  // 64-bit length with the high bit set
        ([0x82, 0x7E, 0x04, 0x01], 1009),  // 1025 bytes over a 1024-byte limit, refused from the header
    ] as [([UInt8], Int)])
    func refusals(bytes: [UInt8], code: Int) throws {
        for chunking in [[bytes[...]], bytes.indices.map { bytes[$0...$0] }] {
            var decoder = WebSocketFrameDecoder(maximumPayloadBytes: 1024)
            let error = #expect(throws: WebSocketProtocolViolation.self) {
                for chunk in chunking {
                    decoder.feed(chunk)
                    while try decoder.nextFrame() != nil {}
                }
            }
            #expect(error?.closeCode == code)
            // and it stays failed
            #expect(throws: WebSocketProtocolViolation.self) { _ = try decoder.nextFrame() }
        }
    }

    @Test("With permessage-deflate, RSV1 is allowed on a first data frame only")
    func compressedFrames() throws {
        let decoder = WebSocketFrameDecoder(allowsCompressedFrames: true)
        #expect(try Self.decodeAll([[0xC1, 0x01, 0x00]], decoder: decoder) == [WebSocketFrame(opcode: .text, payload: [0], isCompressed: true)])
        for bytes: [UInt8] in [[0xC0, 0x00], [0xC9, 0x00]] {
            var refusing = decoder
            refusing.feed(bytes)
            #expect(throws: WebSocketProtocolViolation.protocolError("RSV1 set on a control or continuation frame")) { _ = try refusing.nextFrame() }
        }
    }
}
