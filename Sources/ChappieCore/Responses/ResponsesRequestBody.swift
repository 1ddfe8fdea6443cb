/// Builds the JSON body of `POST /codex/responses` (PROTOCOL §4.3–4.4).
///
/// Always `store:false`, `stream:true`, the full transcript as `input`, `instructions` present,
/// the thread id as `prompt_cache_key`. Never sends what the backend rejects (`max_output_tokens`,
/// `temperature`, `previous_response_id`, item ids).
struct ResponsesRequestBody: Sendable {
    var model: String
    var instructions: String
    var input: [ChappieJSONValue]
    var tools: [ChappieHarnessTool]
    var reasoningEffort: String?
    var promptCacheKey: String
    /// `text.format` (`{"type":"json_schema","strict":true,"schema":…,"name":…}`, PROTOCOL §4.3;
    /// the Codex CLI's `--output-schema`); the `text` key is sent only when set.
    var textFormat: ChappieJSONValue? = nil
    /// `reasoning.summary` (`auto`, `concise`, `detailed`); sent only when set.
    var reasoningSummary: String? = nil
    /// `text.verbosity` (`low`, `medium`, `high`); sent only when set.
    var verbosity: String? = nil
    /// Tools whose spec says `"strict": true` (typed tools, whose schemas meet strict mode's rules).
    var strictToolNames: Set<String> = []
    /// Adds the hosted `{"type":"web_search"}` tool (PROTOCOL §4.5, as the Codex CLI sends it).
    var webSearch = false

    /// The JSON object.
    var json: ChappieJSONValue {
        var body: [String: ChappieJSONValue] = [
            Wire.model: .string(model),
            Wire.instructions: .string(instructions),
            Wire.input: .array(input),
            Wire.tools: .array(tools.map { Self.toolSpec($0, strict: strictToolNames.contains($0.name)) }
                + (webSearch ? [[Wire.type: .string(Wire.webSearch)]] : [])),
            Wire.toolChoice: "auto",
            Wire.parallelToolCalls: .bool(!tools.isEmpty),
            Wire.store: false,
            Wire.stream: true,
            Wire.include: [],
            Wire.promptCacheKey: .string(promptCacheKey),
        ]
        if reasoningEffort != nil || reasoningSummary != nil {
            // The encrypted reasoning comes back with every reasoning item and is replayed, so the
            // model keeps its chain across `store:false` requests (PROTOCOL §4.3, §4.4).
            var reasoning: [String: ChappieJSONValue] = [:]
            if let reasoningEffort { reasoning[Wire.effort] = .string(reasoningEffort) }
            if let reasoningSummary { reasoning[Wire.summary] = .string(reasoningSummary) }
            body[Wire.reasoning] = .object(reasoning)
            body[Wire.include] = ["reasoning.encrypted_content"]
        }
        if textFormat != nil || verbosity != nil {
            var text: [String: ChappieJSONValue] = [:]
            if let textFormat { text[Wire.format] = textFormat }
            if let verbosity { text[Wire.verbosity] = .string(verbosity) }
            body[Wire.text] = .object(text)
        }
        return .object(body)
    }

    /// A `message` input item for `message` (system → developer; assistant text as `output_text`).
    /// A user message's attachments follow its text as `input_image` parts
    /// (`{"type":"input_image","image_url":"data:<mime>;base64,<data>"}` or the image's URL, as
    /// the Codex CLI sends `--image`, PROTOCOL §4.4).
    static func item(for message: ChappieInputMessage) -> ChappieJSONValue {
        let role: String = switch message.role {
        case .system, .developer: "developer"
        case .user: "user"
        case .assistant: "assistant"
        }
        let partType = message.role == .assistant ? Wire.outputText : Wire.inputText
        var content: [ChappieJSONValue] = [[Wire.type: .string(partType), Wire.text: .string(message.text)]]
        if message.role == .user { content += message.attachments.map(\.contentPart) }
        return [Wire.type: "message", Wire.role: .string(role), Wire.content: .array(content)]
    }

    /// A `function` tool spec (PROTOCOL §4.5), `strict` as given (the Codex CLI sends false).
    static func toolSpec(_ tool: ChappieHarnessTool, strict: Bool) -> ChappieJSONValue {
        [Wire.type: "function", Wire.name: .string(tool.name), Wire.description: .string(tool.description),
         Wire.strict: .bool(strict), Wire.parameters: tool.inputSchema]
    }

    /// A `function` tool spec with `"strict": false`.
    static func toolSpec(_ tool: ChappieHarnessTool) -> ChappieJSONValue {
        toolSpec(tool, strict: false)
    }

    private enum Wire {
        static let model = "model"
        static let instructions = "instructions"
        static let input = "input"
        static let tools = "tools"
        static let toolChoice = "tool_choice"
        static let parallelToolCalls = "parallel_tool_calls"
        static let store = "store"
        static let stream = "stream"
        static let include = "include"
        static let promptCacheKey = "prompt_cache_key"
        static let reasoning = "reasoning"
        static let effort = "effort"
        static let type = "type"
        static let role = "role"
        static let content = "content"
        static let text = "text"
        static let format = "format"
        static let summary = "summary"
        static let verbosity = "verbosity"
        static let inputText = "input_text"
        static let outputText = "output_text"
        static let name = "name"
        static let description = "description"
        static let strict = "strict"
        static let parameters = "parameters"
        static let webSearch = "web_search"
    }
}

extension ChappieHarness {
    /// The developer message that opens every transcript: the surface, its capabilities, tools
    /// and plugins. Nil for an empty harness.
    var contextMessage: ChappieInputMessage? {
        guard !isEmpty else { return nil }
        var lines = ["# Host app surface", "Name: \(name)"]
        if !summary.isEmpty { lines.append("Summary: \(summary)") }
        lines.append("Capabilities you may claim:")
        lines.append(contentsOf: capabilities.isEmpty ? ["- none beyond conversation"] : capabilities.map { "- \($0)" })
        if !tools.isEmpty {
            lines.append("Tools:")
            lines.append(contentsOf: tools.map { "- \($0.name): \($0.description)" })
        }
        if !plugins.isEmpty {
            lines.append("Plugins:")
            lines.append(contentsOf: plugins.map { "- \($0.name)\($0.version.map { " \($0)" } ?? ""): \($0.description)" })
        }
        return .developer(lines.joined(separator: "\n"))
    }

    /// The request's `instructions`: the harness instructions, or a neutral line when empty
    /// (the backend rejects a request without instructions, PROTOCOL §4.7).
    var requestInstructions: String {
        instructions.isEmpty ? "You are a helpful assistant." : instructions
    }
}
