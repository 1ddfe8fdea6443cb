import Foundation

/// The emulator's deterministic "model": what it answers when a test queued nothing.
///
/// * If the input ends with `function_call_output` items, it reports their outputs as text, in
///   order, joined with "; ".
/// * If the last user message contains `use tool <name>` and a `function` tool named `<name>` is
///   offered, it calls that tool; any JSON object after the name becomes the arguments (else `{}`).
///   Several `use tool` phrases (separated by " and ") make several calls in one response, in
///   parallel.
/// * Otherwise it answers ``ChappieEmulator/defaultReply(for:)`` of the last user message,
///   followed by ` (I saw N images)` when the input's messages carry `input_image` parts (all of
///   them, earlier turns' included).
/// * When the request offers the `web_search` tool, a text answer is preceded by two
///   `web_search_call` items (searching for the user's text, opening
///   ``ChappieEmulator/webSearchPageURL``) and cites that page (``ScriptedResponse``).
/// * With a structured-output schema (`text.format`), every text answer is instead a JSON value
///   that follows the schema (``StructuredOutput/sample(for:seed:depth:)``; strings echo the
///   user's text or the tool's output).
enum ScriptedModel {
    /// The reply for `request`.
    static func reply(to request: ResponsesRequest) -> ChappieEmulator.ScriptedReply {
        let outputs = request.input.reversed().prefix { $0[Wire.type]?.stringValue == Wire.functionCallOutput }.reversed()
        if let schema = request.outputSchema, !outputs.isEmpty {
            let seed = outputs.map { outputText($0[Wire.output]) }.joined(separator: "; ")
            return .text(StructuredOutput.sample(for: schema, seed: seed).serialized)
        }
        if !outputs.isEmpty {
            return .text(Wire.toolResultPrefix + outputs.map { truncated(outputText($0[Wire.output])) }.joined(separator: "; "))
        }
        let userText = request.lastUserText
        var calls: [ChappieEmulator.ScriptedFunctionCall] = []
        for phrase in userText.components(separatedBy: Wire.toolTrigger).dropFirst() {
            let rest = phrase.replacingOccurrences(of: Wire.conjunction, with: "").trimmingCharacters(in: .whitespaces)
            let name = String(rest.prefix { !$0.isWhitespace })
            guard request.functionToolNames.contains(name) else { continue }
            let argumentsText = rest.dropFirst(name.count).trimmingCharacters(in: .whitespacesAndNewlines)
            let isObject = JSONValue.parse(Data(argumentsText.utf8))?.objectMembers != nil
            calls.append(.init(name: name, arguments: isObject ? argumentsText : "{}"))
        }
        if calls.count == 1 { return .functionCall(name: calls[0].name, arguments: calls[0].arguments) }
        if calls.count > 1 { return .functionCalls(calls) }
        if let schema = request.outputSchema { return .text(StructuredOutput.sample(for: schema, seed: userText).serialized) }
        let images = request.imageCount
        let seen = images == 0 ? "" : " (I saw \(images) image\(images == 1 ? "" : "s"))"
        return .text(ChappieEmulator.defaultReply(for: userText) + seen)
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
        static let conjunction = " and "
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

extension ChappieEmulator {
    /// The page the scripted model "opens" and cites when a request offers web search.
    public static let webSearchPageURL = "https://example.com/"
    /// The title of ``webSearchPageURL`` in the scripted citation.
    public static let webSearchPageTitle = "Example Domain"
}
