import Foundation

/// Base64url without padding (RFC 4648 §5), the encoding of JWT segments and PKCE values
/// (RFC 7636 §4.2).
enum Base64URL {
    /// Encodes `bytes` as unpadded base64url.
    static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Standard padded base64 (RFC 4648 §4), used for header values such as `x-error-json`.
    static func standard(_ data: Data) -> String { data.base64EncodedString() }

    /// Decodes unpadded (or padded) base64url; nil when the text is not valid.
    static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
