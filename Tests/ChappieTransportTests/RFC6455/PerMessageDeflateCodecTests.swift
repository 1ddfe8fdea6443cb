#if os(Linux)
@testable import ChappieTransport
import Foundation
import Testing

@Suite("permessage-deflate over the system zlib (RFC 7692 §7.2)")
struct PerMessageDeflateCodecTests {
    static func codec(_ parameters: PerMessageDeflateParameters = PerMessageDeflateParameters()) throws -> PerMessageDeflateCodec {
        try PerMessageDeflateCodec(zlib: try ZlibLibrary.shared.get(), parameters: parameters)
    }

    @Test("The RFC's compressed \"Hello\", then \"Hello\" again on the same window, inflate")
    func rfcExamples() throws {
        let codec = try Self.codec()
        #expect(try codec.inflate([0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00], maximumBytes: 100) == Array("Hello".utf8))
        #expect(try codec.inflate([0xF2, 0x00, 0x11, 0x00, 0x00], maximumBytes: 100) == Array("Hello".utf8))
    }

    @Test("server_no_context_takeover resets the window: a back-reference into the last message no longer inflates")
    func serverNoContextTakeover() throws {
        let codec = try Self.codec(PerMessageDeflateParameters(serverNoContextTakeover: true))
        #expect(try codec.inflate([0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00], maximumBytes: 100) == Array("Hello".utf8))
        let error = #expect(throws: WebSocketProtocolViolation.self) { _ = try codec.inflate([0xF2, 0x00, 0x11, 0x00, 0x00], maximumBytes: 100) }
        #expect(error?.closeCode == 1007)
    }

    @Test("What the client deflates inflates back, without the 00 00 FF FF tail, smaller the second time with context takeover")
    func roundTrip() throws {
        let codec = try Self.codec()
        let message = Array(String(repeating: "{\"type\":\"message\",\"role\":\"user\"} ", count: 40).utf8)
        let first = try #require(codec.deflate(message))
        let second = try #require(codec.deflate(message))
        #expect(first.suffix(4) != [0x00, 0x00, 0xFF, 0xFF])
        #expect(first.count < message.count / 4)
        #expect(second.count < first.count)
        let reader = try Self.codec()
        #expect(try reader.inflate(first, maximumBytes: 1 << 20) == message)
        #expect(try reader.inflate(second, maximumBytes: 1 << 20) == message)
    }

    @Test("client_no_context_takeover makes every message stand alone; an 8-bit window turns sending compressed off")
    func clientNoContextTakeover() throws {
        let codec = try Self.codec(PerMessageDeflateParameters(clientNoContextTakeover: true))
        let message = Array("Hello, Hello, Hello".utf8)
        let first = try #require(codec.deflate(message))
        #expect(codec.deflate(message) == first)
        let fresh = try Self.codec(PerMessageDeflateParameters(serverNoContextTakeover: true))
        #expect(try fresh.inflate(first, maximumBytes: 100) == message)
        #expect(try fresh.inflate(first, maximumBytes: 100) == message)
        let eightBits = try Self.codec(PerMessageDeflateParameters(clientMaxWindowBits: 8))
        #expect(!eightBits.compressesOutgoingMessages)
        #expect(eightBits.deflate(message) == nil)
    }

    @Test("A decompression bomb stops at the limit with 1009; garbage is 1007")
    func limits() throws {
        let bomb = try #require(try Self.codec().deflate([UInt8](repeating: 0, count: 8 << 20)))
        #expect(bomb.count < 64 * 1024)
        let error = #expect(throws: WebSocketProtocolViolation.self) { _ = try Self.codec().inflate(bomb, maximumBytes: 1 << 20) }
        #expect(error?.closeCode == 1009)
        let garbage = #expect(throws: WebSocketProtocolViolation.self) { _ = try Self.codec().inflate([0xFF, 0xFF, 0xFF, 0x00, 0x12], maximumBytes: 100) }
        #expect(garbage?.closeCode == 1007)
    }
}
#endif
