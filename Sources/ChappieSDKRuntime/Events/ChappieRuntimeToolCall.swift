import ChappieSDK
import Foundation

/// A host tool call as the runtime records and reports it, independent of the wire events.
public struct ChappieRuntimeToolCall: Sendable, Hashable, Codable {
    /// Where a tool call stands.
    public struct Status: RawRepresentable, Sendable, Hashable, Codable {
        /// The stored name; unknown names from newer versions are kept as they are.
        public var rawValue: String
        /// Creates a status from its stored name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The model asked for the call; it has not finished.
        public static let requested = Status(rawValue: "requested")
        /// The tool ran and its output went back to the model.
        public static let completed = Status(rawValue: "completed")
        /// The tool ran and failed.
        public static let failed = Status(rawValue: "failed")
        /// The call was denied by policy or by the user.
        public static let denied = Status(rawValue: "denied")
        /// The call was cancelled.
        public static let cancelled = Status(rawValue: "cancelled")
    }

    /// The call id the model gave (`call_…`); pairs the request with its output.
    public var callID: String
    /// The tool's name.
    public var name: String
    /// The arguments as the model sent them (JSON text, possibly malformed).
    public var arguments: String
    /// Where the call stands.
    public var status: Status
    /// The tool's output as sent back to the model, once there is one.
    public var output: String?
    /// How long the tool ran, once it finished.
    public var duration: Duration?

    /// Creates a tool call record.
    public init(callID: String, name: String, arguments: String, status: Status = .requested,
                output: String? = nil, duration: Duration? = nil) {
        self.callID = callID
        self.name = name
        self.arguments = arguments
        self.status = status
        self.output = output
        self.duration = duration
    }

    /// The record of `call` in `status`, with no output yet.
    public init(_ call: ChappieToolCall, status: Status) {
        self.init(callID: call.callID, name: call.name, arguments: call.rawArguments, status: status)
    }

    /// The record of a finished host tool call: its status, output and duration.
    public init(_ result: ChappieToolExecutionResult) {
        self.init(callID: result.call.callID, name: result.call.name, arguments: result.call.rawArguments,
                  status: Status(rawValue: result.status.rawValue), output: result.output,
                  duration: .milliseconds(Int64((max(0, result.duration) * 1000).rounded())))
    }

    /// The `function_call` output items of a response, as requested calls, in order. Items of
    /// other types, and calls without a call id or name, are skipped.
    public static func requestedCalls(in items: [ChappieJSONValue]) -> [ChappieRuntimeToolCall] {
        items.compactMap { item in
            guard item[Wire.type]?.stringValue == Wire.functionCall,
                  let callID = item[Wire.callID]?.stringValue, let name = item[Wire.name]?.stringValue else { return nil }
            return ChappieRuntimeToolCall(callID: callID, name: name, arguments: item[Wire.arguments]?.stringValue ?? "")
        }
    }

    private enum Wire {
        static let type = "type"
        static let functionCall = "function_call"
        static let callID = "call_id"
        static let name = "name"
        static let arguments = "arguments"
    }
}
