import Foundation

/// A request for the user's consent before a tool with the `ask` policy runs, as the runtime
/// records and reports it.
public struct ChappieRuntimeApproval: Sendable, Hashable, Codable {
    /// What became of an approval request.
    public struct Decision: RawRepresentable, Sendable, Hashable, Codable {
        /// The stored name; unknown names from newer versions are kept as they are.
        public var rawValue: String
        /// Creates a decision from its stored name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Waiting for the user.
        public static let pending = Decision(rawValue: "pending")
        /// The user approved the call.
        public static let approved = Decision(rawValue: "approved")
        /// The user denied the call.
        public static let denied = Decision(rawValue: "denied")
    }

    /// The call id of the tool call that needs approval.
    public var callID: String
    /// The tool's name.
    public var toolName: String
    /// The arguments the model sent (JSON text).
    public var arguments: String
    /// What became of the request.
    public var decision: Decision
    /// The reason given with a denial, if any.
    public var reason: String?

    /// Creates an approval record.
    public init(callID: String, toolName: String, arguments: String, decision: Decision = .pending, reason: String? = nil) {
        self.callID = callID
        self.toolName = toolName
        self.arguments = arguments
        self.decision = decision
        self.reason = reason
    }
}
