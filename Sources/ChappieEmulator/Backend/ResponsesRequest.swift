/// A `/responses` request body that passed validation (PROTOCOL §4.3), with the fields the
/// scripted model and the event stream need.
struct ResponsesRequest: Sendable {
    /// The model slug as requested.
    var model: String
    /// `instructions`, when present and non-empty.
    var instructions: String?
    /// The `input` items.
    var input: [JSONValue]
    /// The `tools` array (possibly empty).
    var tools: [JSONValue]
    /// The `reasoning` object, when present and not null.
    var reasoning: JSONValue?
    /// The `text` object, when present.
    var text: JSONValue?
    /// `parallel_tool_calls` (default false).
    var parallelToolCalls: Bool
    /// `include` entries, e.g. `reasoning.encrypted_content`.
    var include: [String]
    /// `prompt_cache_key`, when present.
    var promptCacheKey: String?
    /// `tool_choice` as sent (default `"auto"`).
    var toolChoice: JSONValue
    /// The API the request came through; the stream's item shapes follow it.
    var dialect = Dialect.codex
    /// Function tools offered outside top-level `tools`: inside `namespace` tools or
    /// `additional_tools` input items (public API only, SIWC.md §4.2).
    var additionalFunctionNames = [String]()
    /// The `namespace` of each function tool offered inside a `namespace` tool, by function name.
    var functionNamespaces = [String: String]()
    /// Whether `response.completed` carries an empty `output` (a live quirk of the public API).
    var completedOutputIsEmpty = false

    /// Which API personality a request used.
    enum Dialect: Sendable {
        /// `chatgpt.com/backend-api/codex` (PROTOCOL §4).
        case codex
        /// `api.openai.com/v1` under Sign in with ChatGPT: message items carry `phase`.
        case publicAPI
    }
    /// The `previous_response_id` an incremental WebSocket `response.create` chained onto; echoed
    /// in the response objects (nil on HTTP and for a full request).
    var previousResponseID: String? = nil

    /// The text of the last `user` message (its `input_text` parts joined by newlines), or "".
    var lastUserText: String {
        for item in input.reversed() where item["role"]?.stringValue == "user" {
            if let text = item["content"]?.stringValue { return text }
            let parts = item["content"]?.arrayValue ?? []
            return parts.compactMap { part in
                part["type"]?.stringValue == "input_text" || part["type"]?.stringValue == "text" ? part["text"]?.stringValue : nil
            }.joined(separator: "\n")
        }
        return ""
    }

    /// Whether the input ends with a `{"type":"compaction_trigger"}` item: a remote compaction
    /// v2 request (the Codex CLI's default since 0.163), answered with one `compaction` item.
    var asksForCompaction: Bool {
        input.last?["type"]?.stringValue == "compaction_trigger"
    }

    /// The schema of a `text.format` of type `json_schema` (structured output), when requested.
    var outputSchema: JSONValue? {
        guard let format = text?["format"], format["type"]?.stringValue == "json_schema" else { return nil }
        return format["schema"]
    }

    /// Whether the hosted web search tool is offered (`{"type":"web_search"}`, or the older
    /// `web_search_preview`).
    var offersWebSearch: Bool {
        tools.contains { ["web_search", "web_search_preview"].contains($0["type"]?.stringValue ?? "") }
    }

    /// The number of `input_image` parts in the input's messages.
    var imageCount: Int { ImageInput.count(in: input) }

    /// Names of the offered `function` tools, wherever they were offered.
    var functionToolNames: [String] {
        tools.compactMap { $0["type"]?.stringValue == "function" ? $0["name"]?.stringValue : nil } + additionalFunctionNames
    }

    /// Number of characters of text in `instructions` and every string inside `input`, the basis
    /// of the emulator's token estimate (≈ 4 characters per token).
    var inputCharacterCount: Int {
        func count(_ value: JSONValue) -> Int {
            switch value {
            case .string(let text): text.count
            case .array(let elements): elements.reduce(0) { $0 + count($1) }
            case .object(let members): members.reduce(0) { $0 + count($1.1) }
            default: 0
            }
        }
        return (instructions?.count ?? 0) + input.reduce(0) { $0 + count($1) }
    }
}
