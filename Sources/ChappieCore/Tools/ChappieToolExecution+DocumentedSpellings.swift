/// The published documentation's spellings of a tool call's name and arguments (issue 17): the
/// docs describe requests that "contain the tool name, arguments, and the policy applied".
extension ChappieToolCall {
    /// The arguments exactly as the model sent them (JSON text); the same as ``rawArguments``.
    /// ``argumentsJSON`` is the parsed value.
    public var arguments: String { rawArguments }
}

extension ChappieToolExecutionRequest {
    /// The name of the tool the model called (``ChappieToolCall/name`` of ``call``).
    public var name: String { call.name }
    /// The arguments as the model sent them, JSON text (``ChappieToolCall/rawArguments`` of ``call``).
    public var arguments: String { call.rawArguments }
}

extension ChappieApprovalRequest {
    /// The name of the tool awaiting approval (``ChappieToolCall/name`` of ``call``).
    public var name: String { call.name }
    /// The arguments as the model sent them, JSON text (``ChappieToolCall/rawArguments`` of ``call``).
    public var arguments: String { call.rawArguments }
}
