import Foundation

/// Whether a tool runs by itself, after the user approves, or never.
public enum ChappieToolPolicy: String, Sendable, Hashable, Codable {
    /// Run as soon as the model calls it.
    case automatic
    /// Ask the client's approval handler first.
    case ask
    /// Never run; the model is told it was denied.
    case deny
}

/// A tool call handed to a host tool's handler.
public struct ChappieToolCall: Sendable, Hashable {
    /// The tool name.
    public var name: String
    /// The call id (`call_…`).
    public var callID: String
    /// The arguments exactly as the model sent them (JSON text, possibly malformed).
    public var rawArguments: String
    /// The parsed arguments, or nil when `rawArguments` is not valid JSON.
    public var argumentsJSON: ChappieJSONValue?
    /// Why the arguments did not parse, when they did not.
    public var argumentsParseError: String?

    /// Creates a call from the model's raw arguments, parsing them.
    public init(name: String, callID: String, rawArguments: String) {
        self.name = name
        self.callID = callID
        self.rawArguments = rawArguments
        let text = rawArguments.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty {
            argumentsJSON = .object([:])
        } else if let value = try? ChappieJSONValue(jsonData: Data(text.utf8)) {
            argumentsJSON = value
        } else {
            argumentsParseError = "the arguments are not valid JSON"
        }
    }
}

/// What a host tool returns to the model.
public struct ChappieToolResult: Sendable, Hashable {
    /// The text fed back to the model (often JSON).
    public var output: String

    /// Creates a result.
    public init(output: String) { self.output = output }
}

/// An app function the model may call: matched to model calls by name, run per its policy.
public struct ChappieHostTool: Sendable {
    /// The function name the model calls.
    public var name: String
    /// What it does, for the model.
    public var description: String
    /// JSON Schema of its arguments.
    public var inputSchema: ChappieJSONValue
    /// When it may run.
    public var policy: ChappieToolPolicy
    /// The function. It may throw (the model gets a failed result) and should honour cancellation.
    public var handler: @Sendable (ChappieToolCall) async throws -> ChappieToolResult
    /// Whether the tool is declared with `"strict": true`, so the model's arguments always follow
    /// `inputSchema`; only for a schema that meets strict mode's rules (a typed tool's does).
    public var strict = false

    /// Creates a host tool.
    public init(name: String, description: String, inputSchema: ChappieJSONValue = ["type": "object", "properties": [:]],
                policy: ChappieToolPolicy = .automatic,
                handler: @escaping @Sendable (ChappieToolCall) async throws -> ChappieToolResult) {
        self.name = name
        self.description = description
        self.inputSchema = inputSchema
        self.policy = policy
        self.handler = handler
    }

    /// The declaration the model sees.
    public var declaration: ChappieHarnessTool {
        ChappieHarnessTool(name: name, description: description, inputSchema: inputSchema)
    }
}
