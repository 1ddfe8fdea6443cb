/// Builds the frames a client sends (RFC 6455 §5.2-5.3): FIN, RSV1 when compressed, the opcode,
/// the shortest length form, the MASK bit and a masking key, then the masked payload.
///
/// Every client frame is masked with a fresh key from a cryptographically strong generator
/// (§5.3: the key must not be predictable), so ``encode(_:)`` draws it from
/// `SystemRandomNumberGenerator`.
enum WebSocketFrameEncoder {
    /// `frame` masked with a fresh random key.
    static func encode(_ frame: WebSocketFrame) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let key = generator.next() as UInt32
        return encode(frame, maskingKey: [UInt8(key >> 24), UInt8(key >> 16 & 0xFF), UInt8(key >> 8 & 0xFF), UInt8(key & 0xFF)])
    }

    /// `frame` masked with `maskingKey` (4 bytes; tests pass a fixed key).
    static func encode(_ frame: WebSocketFrame, maskingKey: [UInt8]) -> [UInt8] {
        precondition(maskingKey.count == 4, "a masking key is 4 bytes")
        let count = frame.payload.count
        var output: [UInt8] = []
        output.reserveCapacity(14 + count)
        output.append((frame.isFinal ? 0x80 : 0) | (frame.isCompressed ? 0x40 : 0) | frame.opcode.rawValue)
        switch count {
        case 0...125:
            output.append(0x80 | UInt8(count))
        case 126...0xFFFF:
            output += [0x80 | 126, UInt8(count >> 8), UInt8(count & 0xFF)]
        default:
            output.append(0x80 | 127)
            output += (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(count) >> UInt64($0 * 8)) }
        }
        output += maskingKey
        let payloadStart = output.count
        output += frame.payload
        output.withUnsafeMutableBytes { bytes in
            mask(UnsafeMutableRawBufferPointer(rebasing: bytes[payloadStart...]), key: maskingKey)
        }
        return output
    }

    /// XORs `bytes` in place with the repeating 4-byte `key` (RFC 6455 §5.3), eight bytes at a
    /// time; masking twice restores the input.
    static func mask(_ bytes: UnsafeMutableRawBufferPointer, key: [UInt8]) {
        guard let base = bytes.baseAddress else { return }
        var pattern: UInt64 = 0
        withUnsafeMutableBytes(of: &pattern) { word in
            for index in 0..<8 { word[index] = key[index % 4] }
        }
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            base.storeBytes(of: word ^ pattern, toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < bytes.count {
            bytes[offset] ^= key[offset % 4]
            offset += 1
        }
    }
}
