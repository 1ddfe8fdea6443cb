/// The message schedule input shared by SHA-1 and SHA-256 (FIPS 180-4 §5.1.1 padding, §5.2.1
/// parsing into 512-bit blocks of big-endian 32-bit words).
enum SHAMessageBlocks {
    /// `message` padded: a 1 bit, zeros up to 56 mod 64 bytes, then the bit length as 64 bits.
    static func padded<Bytes: Sequence>(_ message: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var bytes = Array(message)
        let bitLength = UInt64(bytes.count) &* 8
        bytes.append(0x80)
        while bytes.count % 64 != 56 { bytes.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        return bytes
    }

    /// Loads the 16 big-endian words of the block at `blockStart` into `words[0..<16]`.
    static func loadWords(_ bytes: [UInt8], blockStart: Int, into words: inout [UInt32]) {
        for index in 0..<16 {
            let offset = blockStart + index * 4
            words[index] = UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16
                | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
        }
    }
}
