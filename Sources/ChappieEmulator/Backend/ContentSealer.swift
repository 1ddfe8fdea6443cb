import Foundation

/// The emulator's stand-in for the key the real backend seals opaque items with: the
/// `encrypted_content` of `reasoning` and `compaction` output items. Each value it mints names the
/// key generation it was sealed under; after ``rotate()`` (the server's key changed), a request
/// whose input carries a value of an older generation, or one the emulator never minted, is
/// refused as the real backend refuses it: HTTP 400 (an `error` event over the WebSocket) with
/// `{"error":{"message":"The encrypted content gAAA...xx== could not be verified.",
/// "type":"invalid_request_error","param":null,"code":"invalid_encrypted_content"}}`, the shape
/// reported from the live service in openai/codex issues #8119 and #8145. Until the first rotation
/// every value is accepted, so scripted items of any text keep working.
final class ContentSealer: Sendable {
    private let generation = LockedBox(0)

    /// The current key generation (0 until the first rotation).
    var currentGeneration: Int { generation.withLock { $0 } }

    /// Seals `payload` under the current key: Fernet-like text (`gAAAAAB…`, as the live service's
    /// values begin) that carries the generation.
    func seal(_ payload: String) -> String {
        Wire.prefix + Base64URL.standard(Data("\(Wire.marker)\(currentGeneration):\(payload)".utf8))
    }

    /// Changes the key: values sealed before cannot be read any more.
    func rotate() { generation.withLock { $0 += 1 } }

    /// The refusal's message for the first item of `input` whose `encrypted_content` the current
    /// key cannot read, or nil when every one is readable.
    func unreadableContentMessage(in input: [JSONValue]) -> String? {
        let current = currentGeneration
        guard current > 0 else { return nil }
        for item in input {
            guard let content = item[Wire.encryptedContent]?.stringValue, !isReadable(content, generation: current) else { continue }
            return "The encrypted content \(Self.abbreviated(content)) could not be verified."
        }
        return nil
    }

    /// The HTTP 400 body for `message`.
    static func errorBody(message: String) -> JSONValue {
        ["error": ["message": .string(message), "type": .string(errorType), "param": .null, "code": .string(errorCode)]]
    }

    /// The refusal's `error.type`.
    static let errorType = "invalid_request_error"
    /// The refusal's `error.code`.
    static let errorCode = "invalid_encrypted_content"

    private func isReadable(_ content: String, generation: Int) -> Bool {
        guard content.hasPrefix(Wire.prefix),
              let data = Data(base64Encoded: String(content.dropFirst(Wire.prefix.count))) else { return false }
        return String(decoding: data, as: UTF8.self).hasPrefix("\(Wire.marker)\(generation):")
    }

    /// The value as the live service quotes it: its first and last four characters.
    private static func abbreviated(_ content: String) -> String {
        content.count > 8 ? "\(content.prefix(4))...\(content.suffix(4))" : content
    }

    private enum Wire {
        static let prefix = "gAAAAAB"
        static let marker = "chappie-emulator-key-"
        static let encryptedContent = "encrypted_content"
    }
}
