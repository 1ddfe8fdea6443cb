/// A small SHA-1 (FIPS 180-4 §6.1), used only for the WebSocket handshake's
/// `Sec-WebSocket-Accept` value (RFC 6455 §4.2.2), where SHA-1 is mandated and not a security
/// boundary. Checked against the RFC 3174 vectors and the RFC 6455 handshake example in tests.
enum SHA1 {
    /// The 20-byte SHA-1 digest of `message`.
    static func digest<Bytes: Sequence>(_ message: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        let bytes = SHAMessageBlocks.padded(message)
        var hash: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var words = [UInt32](repeating: 0, count: 80)
        for blockStart in stride(from: 0, to: bytes.count, by: 64) {
            SHAMessageBlocks.loadWords(bytes, blockStart: blockStart, into: &words)
            for index in 16..<80 {
                words[index] = rotate(words[index - 3] ^ words[index - 8] ^ words[index - 14] ^ words[index - 16], 1)
            }
            var a = hash[0], b = hash[1], c = hash[2], d = hash[3], e = hash[4]
            for index in 0..<80 {
                let (f, k): (UInt32, UInt32)
                switch index {
                case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let temp = rotate(a, 5) &+ f &+ e &+ k &+ words[index]
                e = d; d = c; c = rotate(b, 30); b = a; a = temp
            }
            hash[0] = hash[0] &+ a; hash[1] = hash[1] &+ b; hash[2] = hash[2] &+ c
            hash[3] = hash[3] &+ d; hash[4] = hash[4] &+ e
        }
        return hash.flatMap { word in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> UInt32($0)) } }
    }

    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }
}
