import Foundation

/// Reads the payload of a JSON Web Token without verifying it (RFC 7519 §7.2 steps 1–7, minus the
/// signature), the way the Codex CLI reads ChatGPT tokens (PROTOCOL §3): three non-empty
/// dot-separated parts, base64url middle segment without padding.
struct JWTClaims: Sendable {
    /// The decoded payload object.
    let payload: [String: ChappieJSONValue]

    /// Decodes `token`; returns nil when it is not a three-part JWT with a JSON object payload.
    init?(token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }),
              let data = Base64URL.decode(String(parts[1])),
              case .object(let object)? = try? JSONDecoder().decode(ChappieJSONValue.self, from: data)
        else { return nil }
        payload = object
    }

    /// The `exp` claim as a date.
    var expiresAt: Date? { payload[Wire.exp]?.doubleValue.map(Date.init(timeIntervalSince1970:)) }

    /// The namespaced OpenAI auth claims object.
    var auth: [String: ChappieJSONValue] { payload[Wire.auth]?.objectValue ?? [:] }

    /// `chatgpt_account_id`, with the fallbacks seen in the wild (PROTOCOL §3.1).
    var accountID: String? {
        auth[Wire.accountID]?.stringValue
            ?? payload[Wire.accountID]?.stringValue
            ?? payload[Wire.organizations]?.arrayValue?.first?.objectValue?[Wire.id]?.stringValue
    }

    /// `email`, falling back to the profile claim.
    var email: String? {
        payload[Wire.email]?.stringValue ?? payload[Wire.profile]?.objectValue?[Wire.email]?.stringValue
    }

    /// `chatgpt_plan_type`.
    var planType: String? { auth[Wire.plan]?.stringValue }

    /// `sub`, the subject.
    var subject: String? { payload[Wire.sub]?.stringValue }

    /// `chatgpt_user_id`, falling back to `user_id`.
    var userID: String? { auth[Wire.userID]?.stringValue ?? auth[Wire.legacyUserID]?.stringValue }

    private enum Wire {
        static let exp = "exp"
        static let sub = "sub"
        static let auth = "https://api.openai.com/auth"
        static let profile = "https://api.openai.com/profile"
        static let accountID = "chatgpt_account_id"
        static let organizations = "organizations"
        static let id = "id"
        static let email = "email"
        static let plan = "chatgpt_plan_type"
        static let userID = "chatgpt_user_id"
        static let legacyUserID = "user_id"
    }
}

/// Base64url without padding (RFC 4648 §5).
enum Base64URL {
    /// Decodes base64url text, padding it as needed.
    static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64.append("=") }
        return Data(base64Encoded: base64)
    }

    /// Encodes bytes as base64url without padding.
    static func encode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
