import Foundation

/// The model asked for a tool: emitted before the policy is applied.
public struct ChappieToolExecutionRequest: Sendable, Hashable {
    /// The call.
    public var call: ChappieToolCall
    /// The policy that applies (`.deny` for a tool the app does not know).
    public var policy: ChappieToolPolicy
}

/// How a tool call ended.
public enum ChappieToolExecutionStatus: String, Sendable, Hashable, Codable {
    /// The handler returned.
    case completed
    /// The handler threw, the arguments were not JSON, or the tool is unknown.
    case failed
    /// The policy or the user denied it.
    case denied
    /// The turn was cancelled while it ran.
    case cancelled
}

/// A finished tool call: what the model was told.
public struct ChappieToolExecutionResult: Sendable, Hashable {
    /// The call.
    public var call: ChappieToolCall
    /// How it ended.
    public var status: ChappieToolExecutionStatus
    /// The output fed back to the model.
    public var output: String
    /// How long it took, in seconds (handler time, approval wait included).
    public var duration: TimeInterval
}

/// A tool with the `.ask` policy waits for consent.
public struct ChappieApprovalRequest: Sendable, Hashable {
    /// The call awaiting approval.
    public var call: ChappieToolCall
    /// The tool's description, for the prompt shown to the user.
    public var toolDescription: String
}

/// The answer of a ``ChappieClient`` tool approval handler.
public struct ChappieApprovalDecision: Sendable, Hashable {
    /// True when the call may run.
    public var isApproved: Bool
    /// Why it was denied; shown to the model.
    public var reason: String?

    /// Let the call run.
    public static func approved() -> ChappieApprovalDecision { ChappieApprovalDecision(isApproved: true, reason: nil) }
    /// Refuse the call, with a reason the model sees.
    public static func denied(reason: String = "The user declined this action.") -> ChappieApprovalDecision {
        ChappieApprovalDecision(isApproved: false, reason: reason)
    }
}

/// Decides on `.ask` tool calls, e.g. by asking the user.
public typealias ChappieToolApprovalHandler = @Sendable (ChappieApprovalRequest) async -> ChappieApprovalDecision
