import Foundation

/// Reads string fields from a request body that may be JSON (`application/json`, as Codex sends
/// refresh and device-flow bodies) or form-encoded (`application/x-www-form-urlencoded`, as the
/// code exchange and other clients send them). PROTOCOL §1.3, §2.1.
enum RequestFields {
    /// The top-level string-ish fields of `request`'s body; nil when the body is neither valid JSON
    /// object nor form data. Numbers and Booleans in JSON are rendered as text.
    static func parse(_ request: HTTPRequest) -> [String: String]? {
        let contentType = request.header("Content-Type")?.lowercased() ?? ""
        let looksLikeJSON = contentType.contains("json") || request.body.first == UInt8(ascii: "{")
        if looksLikeJSON {
            guard let members = JSONValue.parse(request.body)?.objectMembers else { return nil }
            var fields = [String: String]()
            for (key, value) in members {
                switch value {
                case .string(let text): fields[key] = text
                case .int(let number): fields[key] = String(number)
                case .bool(let flag): fields[key] = flag ? "true" : "false"
                default: continue
                }
            }
            return fields
        }
        guard let text = String(data: request.body, encoding: .utf8) else { return nil }
        return FormURLEncoding.decode(text)
    }
}
