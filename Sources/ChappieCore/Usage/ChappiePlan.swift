/// A ChatGPT plan, from the `chatgpt_plan_type` claim or a usage payload.
///
/// Unknown plans keep their raw value, so a new plan never fails decoding.
public struct ChappiePlan: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The raw value as sent by the server, lower-cased (e.g. `plus`, `team`).
    public let rawValue: String

    /// Wraps a raw plan value.
    public init(rawValue: String) { self.rawValue = rawValue.lowercased() }

    /// Decodes a plan from a JSON string.
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }
    /// Encodes the raw value as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// A name to show people, e.g. "Plus", "Business"; unknown plans show their raw value.
    public var displayName: String {
        switch rawValue {
        case "free": "Free"
        case "go": "Go"
        case "plus": "Plus"
        case "pro": "Pro"
        case "prolite": "Pro Lite"
        case "team": "Team"
        case "self_serve_business_usage_based", "business": "Business"
        case "enterprise_cbp_usage_based", "enterprise", "hc": "Enterprise"
        case "edu", "education": "Edu"
        case "guest": "Guest"
        case "free_workspace": "Free Workspace"
        case "k12": "K-12"
        default: rawValue
        }
    }

    /// True for workspace (team-like) plans, whose limits an administrator manages.
    public var isWorkspace: Bool {
        ["team", "self_serve_business_usage_based", "business", "enterprise_cbp_usage_based", "enterprise", "hc", "edu", "education"]
            .contains(rawValue)
    }

    /// The display name.
    public var description: String { displayName }
}
