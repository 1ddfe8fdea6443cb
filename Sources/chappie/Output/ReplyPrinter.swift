import ChappieSDK

/// Prints one streamed reply: text to standard output as it arrives, tool calls as dim lines, or
/// with `--json` one JSON object per line (`text_delta`, `tool_call`, `tool_result`, `completed`).
/// Shared by `ask` (client events) and `chat`, `demo` and `threads resume` (runtime events).
@MainActor
struct ReplyPrinter {
    let json: Bool
    private var endedWithNewline = true

    init(json: Bool) { self.json = json }

    /// A piece of the reply's text.
    mutating func text(_ text: String) {
        if json {
            Terminal.line(ChappieJSONValue.object(["event": "text_delta", "text": .string(text)]).jsonString)
        } else {
            Terminal.write(text)
            endedWithNewline = text.hasSuffix("\n")
        }
    }

    /// The model asked for a host tool.
    mutating func toolCall(name: String, callID: String, arguments: String) {
        if json {
            Terminal.line(ChappieJSONValue.object(["event": "tool_call", "name": .string(name), "call_id": .string(callID),
                                                   "arguments": .string(arguments)]).jsonString)
        } else {
            if !endedWithNewline { Terminal.line(); endedWithNewline = true }
            Terminal.line(Terminal.dim("[tool] \(name)(\(arguments))"))
        }
    }

    /// A host tool finished (completed, failed, denied or cancelled).
    func toolResult(name: String, callID: String, status: String, output: String) {
        if json {
            Terminal.line(ChappieJSONValue.object(["event": "tool_result", "call_id": .string(callID), "status": .string(status),
                                                   "output": .string(output)]).jsonString)
        } else {
            Terminal.line(Terminal.dim("[tool] \(name) \(status): \(output)"))
        }
    }

    /// The reply is complete; `threadID` is the thread it was saved to, if any.
    func completed(responseID: String?, text: String, usage: ChappieTokenUsage?, threadID: String? = nil) {
        guard json else {
            if !endedWithNewline { Terminal.line() }
            return
        }
        var object: [String: ChappieJSONValue] = ["event": "completed", "id": responseID.map(ChappieJSONValue.string) ?? .null,
                                                  "text": .string(text)]
        if let threadID { object["thread_id"] = .string(threadID) }
        if let usage {
            object["usage"] = ["input_tokens": .integer(usage.inputTokens), "output_tokens": .integer(usage.outputTokens),
                               "total_tokens": .integer(usage.totalTokens)]
        }
        Terminal.line(ChappieJSONValue.object(object).jsonString)
    }
}
