/// The body of `POST <apiBase>/responses` for a Sign in with ChatGPT sign-in, made from the body
/// the turn loop builds (``ResponsesRequestBody``) by an allowlist (SIWC.md §4.2, preview
/// limitations): only the fields below go out, so no field the route rejects (the fifteen
/// `background` … `user`, `previous_response_id`, `service_tier`) can ever reach the wire,
/// whatever is added upstream.
///
/// - `store: false` and `stream: true`, always; `input` always an array.
/// - No `system` role: system guidance is sent as developer messages (the harness instructions go
///   in `instructions`).
/// - Function tools are grouped in one `namespace` tool (``namespace``); `function_call` items
///   replayed as input name that namespace; the hosted `web_search` tool is kept as it is. Without
///   tools, no tool fields are sent.
/// - User messages keep their `input_image` parts (inline `data:` URLs or image URLs).
/// - Compaction items of the ChatGPT/Codex backend are not sent (this route has no remote
///   compaction; their content is opaque to it).
/// - Optional fields the server refused before (`error.param` of an unsupported capability) are
///   left out of later requests.
enum PublicAPIRequestBody {
    /// Top-level fields that may be sent. `reasoning` and `include` were accepted live (SIWC.md
    /// §4.2); `tool_choice`, `parallel_tool_calls` and `prompt_cache_key` are what Codex sends as
    /// a custom provider on this route.
    /// `text` (structured output's `text.format`, verbosity) is not documented for this route: it
    /// is sent, and once refused the schema goes into the input instead (``schemaInstruction(for:)``).
    static let allowedFields: Set<String> = [
        Wire.model, Wire.instructions, Wire.input, Wire.tools, Wire.toolChoice, Wire.parallelToolCalls, Wire.reasoning,
        Wire.include, Wire.promptCacheKey, Wire.store, Wire.stream, Wire.text,
    ]

    /// Fields that may be left out when the server refuses them (they only tune the request).
    static let optionalFields: Set<String> = [Wire.toolChoice, Wire.parallelToolCalls, Wire.reasoning, Wire.include, Wire.promptCacheKey,
                                              Wire.text]

    /// The name of the namespace tool that holds the app's function tools.
    static let namespace = "app"

    /// The public API body for `body` (a ``ResponsesRequestBody`` JSON object), without the
    /// fields in `omitting` (only ``optionalFields`` are ever left out).
    static func make(from body: ChappieJSONValue, omitting: Set<String> = []) -> ChappieJSONValue {
        let source = body.objectValue ?? [:]
        var result: [String: ChappieJSONValue] = [:]
        for (key, value) in source where allowedFields.contains(key) && !(optionalFields.contains(key) && omitting.contains(key)) {
            result[key] = value
        }
        let sourceTools = source[Wire.tools]?.arrayValue ?? []
        let functions = sourceTools.filter { $0[Wire.type]?.stringValue == Wire.function }
        // The hosted web search tool goes as it is (the route offers it where the model and the
        // account's policy allow, SIWC.md §4.2).
        let hosted = sourceTools.filter { $0[Wire.type]?.stringValue == Wire.webSearch }
        var tools: [ChappieJSONValue] = hosted
        if !functions.isEmpty {
            tools.insert([Wire.type: .string(Wire.namespaceType), Wire.name: .string(namespace),
                          Wire.description: .string(Wire.namespaceDescription), Wire.tools: .array(functions)], at: 0)
        }
        if tools.isEmpty {
            result[Wire.tools] = nil
            result[Wire.toolChoice] = nil
            result[Wire.parallelToolCalls] = nil
        } else {
            result[Wire.tools] = .array(tools)
        }
        if result[Wire.reasoning] == nil, let include = result[Wire.include]?.arrayValue,
           include.contains(where: { $0.stringValue?.hasPrefix(Wire.reasoningPrefix) == true }) {
            result[Wire.include] = nil
        }
        var input = (source[Wire.input]?.arrayValue ?? []).compactMap(inputItem)
        if omitting.contains(Wire.text), let instruction = schemaInstruction(for: source[Wire.text]?[Wire.format]) { input.append(instruction) }
        result[Wire.input] = .array(input)
        result[Wire.store] = false
        result[Wire.stream] = true
        return .object(result)
    }

    /// Structured output without `text.format`: a developer message, after the rest of the
    /// input, asking for JSON that follows the format's schema; nil for any other format. The
    /// reply is still decoded and checked against the type by the caller.
    static func schemaInstruction(for format: ChappieJSONValue?) -> ChappieJSONValue? {
        guard let format, format[Wire.type]?.stringValue == Wire.jsonSchema, let schema = format[Wire.schema] else { return nil }
        let text = "Reply with only one JSON value, no other text and no code fence, that follows this JSON Schema: " + schema.jsonString
        return [Wire.type: .string(Wire.message), Wire.role: .string(Wire.developer),
                Wire.content: [[Wire.type: .string(Wire.inputText), Wire.textField: .string(text)]]]
    }

    /// Whether `param` (an `error.param`) names structured output (`text`, `text.format`, …).
    static func namesStructuredOutput(_ param: String?) -> Bool {
        param.map { topLevelField(of: $0) == Wire.text } ?? false
    }

    /// The top-level field an `error.param` names (`reasoning.effort` → `reasoning`,
    /// `tools[0]` → `tools`).
    static func topLevelField(of param: String) -> String {
        String(param.prefix { $0 != "." && $0 != "[" })
    }

    /// One input item as this route takes it; nil for an item it must not get.
    private static func inputItem(_ item: ChappieJSONValue) -> ChappieJSONValue? {
        guard var object = item.objectValue else { return nil }
        switch object[Wire.type]?.stringValue {
        case Wire.message where object[Wire.role]?.stringValue == Wire.system:
            object[Wire.role] = .string(Wire.developer)
        case Wire.functionCall where object[Wire.namespaceField] == nil:
            object[Wire.namespaceField] = .string(namespace)
        case Wire.compaction, Wire.compactionSummary, Wire.compactionTrigger:
            return nil
        default:
            break
        }
        return .object(object)
    }

    private enum Wire {
        static let model = "model"
        static let instructions = "instructions"
        static let input = "input"
        static let tools = "tools"
        static let toolChoice = "tool_choice"
        static let parallelToolCalls = "parallel_tool_calls"
        static let reasoning = "reasoning"
        static let include = "include"
        static let promptCacheKey = "prompt_cache_key"
        static let store = "store"
        static let stream = "stream"
        static let type = "type"
        static let name = "name"
        static let description = "description"
        static let function = "function"
        static let webSearch = "web_search"
        static let namespaceType = "namespace"
        static let namespaceField = "namespace"
        static let namespaceDescription = "Tools of the app the user is using."
        static let reasoningPrefix = "reasoning."
        static let message = "message"
        static let role = "role"
        static let system = "system"
        static let developer = "developer"
        static let functionCall = "function_call"
        static let compaction = "compaction"
        static let compactionSummary = "compaction_summary"
        static let compactionTrigger = "compaction_trigger"
        static let text = "text"
        static let format = "format"
        static let jsonSchema = "json_schema"
        static let schema = "schema"
        static let content = "content"
        static let inputText = "input_text"
        static let textField = "text"
    }
}
