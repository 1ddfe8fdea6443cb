/// Strict UTF-8 decoding that also works below the macOS 15 / iOS 18 floor of
/// `String(validating:as:)` (the package supports macOS 13 and iOS 16).
enum UTF8Text {
    /// The text of `bytes`, or nil when they are not valid UTF-8.
    static func decode<Bytes: Collection>(_ bytes: Bytes) -> String? where Bytes.Element == UInt8 {
        let text = String(decoding: bytes, as: UTF8.self)
        // Invalid sequences decode to U+FFFD, which changes the bytes.
        return text.utf8.elementsEqual(bytes) ? text : nil
    }
}
