import Foundation

/// The emulator's deterministic "model": what it answers when a test queued nothing.
///
/// * If the last input item is a `function_call_output`, it reports the tool result as text.
/// * If the last user message contains `use tool <name>` and a `function` tool named `<name>` is
///   offered, it calls that tool; any JSON object after the name becomes the arguments (else `{}`).
/// * Otherwise it answers ``ChappieEmulator/defaultReply(for:)`` of the last user message.
enum ScriptedModel {
    /// The reply for `request`.
    static func reply(to request: ResponsesRequest) -> ChappieEmulator.ScriptedReply {
        if let last = request.input.last, last[Wire.type]?.stringValue == Wire.functionCallOutput {
            return .text(Wire.toolResultPrefix + truncated(outputText(last[Wire.output])))
        }
        let userText = request.lastUserText
        if let range = userText.range(of: Wire.toolTrigger, options: .caseInsensitive) {
            let rest = userText[range.upperBound...].trimmingCharacters(in: .whitespaces)
            let name = String(rest.prefix { !$0.isWhitespace })
            if request.functionToolNames.contains(name) {
                let argumentsText = rest.dropFirst(name.count).trimmingCharacters(in: .whitespacesAndNewlines)
                let isObject = JSONValue.parse(Data(argumentsText.utf8))?.objectMembers != nil
                return .functionCall(name: name, arguments: isObject ? argumentsText : "{}")
            }
        }
        return .text(ChappieEmulator.defaultReply(for: userText))
    }

    /// The reply text for a user message, shortened to 200 characters plus "…" when longer.
    static func defaultReply(for userText: String) -> String {
        Wire.replyPrefix + "\u{201C}" + truncated(userText) + "\u{201D}"
    }

    private static func truncated(_ text: String) -> String {
        text.count > Wire.maximumEchoCharacters ? String(text.prefix(Wire.maximumEchoCharacters)) + "\u{2026}" : text
    }

    private static func outputText(_ output: JSONValue?) -> String {
        if let text = output?.stringValue { return text }
        return (output?.arrayValue ?? []).compactMap { $0[Wire.text]?.stringValue }.joined(separator: "\n")
    }

    private enum Wire {
        static let type = "type"
        static let output = "output"
        static let text = "text"
        static let functionCallOutput = "function_call_output"
        static let toolTrigger = "use tool "
        static let replyPrefix = "Hello from the Chappie emulator \u{2014} you said: "
        static let toolResultPrefix = "The tool returned: "
        static let maximumEchoCharacters = 200
    }
}

extension ChappieEmulator {
    /// The text the scripted model answers to a user message when no reply is queued:
    /// `Hello from the Chappie emulator — you said: “<text>”` (text cut to 200 characters plus "…").
    /// It contains multi-byte UTF-8 characters on purpose.
    public static func defaultReply(for userText: String) -> String {
        ScriptedModel.defaultReply(for: userText)
    }
}
