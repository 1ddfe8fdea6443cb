/// Random identifiers in the shapes the real services use (`resp_…`, `msg_…`, `deviceauth_…`,
/// user codes like `ABCD-EFGH1`). Shapes come from PROTOCOL §1.1 and §5.6.
enum RandomIdentifier {
    /// `prefix` followed by `hexCount` random lower-case hex digits.
    static func prefixed(_ prefix: String, hexCount: Int = 32) -> String {
        prefix + hex(hexCount)
    }

    /// `count` random lower-case hex digits.
    static func hex(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in Wire.hexDigits.randomElement(using: &generator)! })
    }

    /// A random RFC 4122 version-4 UUID string in lower case.
    static func uuid() -> String {
        let digits = Array(hex(32))
        var parts = [String]()
        var index = 0
        for length in [8, 4, 4, 4, 12] {
            parts.append(String(digits[index..<index + length]))
            index += length
        }
        parts[2] = "4" + parts[2].dropFirst()
        return parts.joined(separator: "-")
    }

    /// A user code in the real `ABCD-EFGH1` shape: four letters, a dash, five letters or digits,
    /// avoiding look-alike characters.
    static func userCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let first = String((0..<4).map { _ in Wire.letters.randomElement(using: &generator)! })
        let second = String((0..<5).map { _ in Wire.alphanumerics.randomElement(using: &generator)! })
        return first + "-" + second
    }

    /// `byteCount` random bytes.
    static func bytes(_ byteCount: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    private enum Wire {
        static let hexDigits = Array("0123456789abcdef")
        static let letters = Array("ABCDEFGHJKLMNPQRSTUVWXYZ")
        static let alphanumerics = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
    }
}
