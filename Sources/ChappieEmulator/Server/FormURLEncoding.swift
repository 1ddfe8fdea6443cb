import Foundation

/// `application/x-www-form-urlencoded` (WHATWG URL §5) as used by the OAuth token endpoint
/// (RFC 6749 §4.1.3) and the device page form.
enum FormURLEncoding {
    /// Decodes `name=value&…` pairs; `+` means space; the last duplicate name wins.
    static func decode(_ text: String) -> [String: String] {
        var result = [String: String]()
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = unescape(String(parts[0]))
            let value = parts.count > 1 ? unescape(String(parts[1])) : ""
            result[name] = value
        }
        return result
    }

    /// Encodes pairs in the given order.
    static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    private static func unescape(_ text: String) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: Wire.unreserved) ?? text
    }

    private enum Wire {
        static let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
    }
}
