/// What `POST /v1/responses` refuses on a ChatGPT plan (SIWC.md §4.2, preview limitations), in
/// this order:
/// 1. a body that is not a JSON object: 400 `invalid_json`;
/// 2. each of the fifteen rejected top-level fields, `previous_response_id` and a `service_tier`
///    override: 400 `subscription_sharing_unsupported_capability` with `param` naming the field;
/// 3. `store` other than false, `stream` other than true: the same code, `param` `store` / `stream`;
/// 4. `input` that is not a list: 422 `{"detail":[{"type":"list_type","loc":["body","input"],…}]}`;
/// 5. no `model`: 400 `missing_required_parameter`; a slug not in the catalog: 404 `model_not_found`;
/// 6. an input message with a role other than `user`, `assistant` or `developer`
///    (`param` `input[i].role`), an `item_reference` (nothing is stored), a tool output without
///    its call;
/// 7. an `input_image` part that is not a well-formed image (``ImageInput``): 400 `invalid_value`;
/// 8. tools: a flat `function` or `custom` tool in top-level `tools` (`param` `tools[i]`: they
///    belong in a `namespace` tool or an `additional_tools` input item), and the hosted tools
///    (image generation, file search, code interpreter, computer use, MCP, `tool_search`,
///    `programmatic_tool_calling`); `web_search` is accepted (account policy) and does nothing.
///
/// `reasoning`, `include`, `text`, `tool_choice`, `parallel_tool_calls`, `prompt_cache_key`,
/// `instructions` and `client_metadata` are accepted (undocumented, seen accepted live).
///
/// A Codex harness is the exception to rule 8: OpenAI documents Codex app-server running on SIWC
/// tokens as a custom provider, and the Codex CLI 0.163.0 in that setup sends flat `function` and
/// `custom` tools and a `tool_search` tool in top-level `tools` (observed against this emulator,
/// 2026-12-01), so the real service evidently serves it. A request with an `originator` header
/// (Codex sends one; app-server sets it from `clientInfo.name`; direct HTTP clients such as the
/// `openai` library send none) may therefore carry those tools. 🔶 The real rule is not published.
enum PublicResponsesValidator {
    /// A refusal: the HTTP answer to send.
    struct Refusal: Error, Sendable {
        /// The error response.
        var response: HTTPResponse
    }

    /// The validated request (its function tools flattened for the scripted model), or the
    /// refusal. `codexHarness` admits the flat tools a Codex harness sends.
    static func validate(_ body: JSONValue?, codexHarness: Bool = false, maximumImageBytes: Int = 20_000_000) -> Result<ResponsesRequest, Refusal> {
        guard let body, body.objectMembers != nil else {
            return .failure(Refusal(response: PublicAPIError.structured(400, code: Wire.invalidJSON, message: Wire.notAnObject)))
        }
        for field in Wire.rejectedFields where body[field] != nil {
            return .failure(unsupported(field))
        }
        guard body[Wire.store]?.boolValue == false else { return .failure(unsupported(Wire.store)) }
        guard body[Wire.stream]?.boolValue == true else { return .failure(unsupported(Wire.stream)) }
        guard let input = body[Wire.input]?.arrayValue else {
            return .failure(Refusal(response: PublicAPIError.validation(
                field: Wire.input, type: "list_type", message: "Input should be a valid list", input: body[Wire.input] ?? .null
            )))
        }
        guard let model = body[Wire.model]?.stringValue, !model.isEmpty else {
            return .failure(Refusal(response: PublicAPIError.structured(400, code: Wire.missingParameter, param: Wire.model)))
        }
        guard ModelsCatalog.slugs.contains(model) else {
            return .failure(Refusal(response: PublicAPIError.structured(404, code: Wire.modelNotFound, param: Wire.model)))
        }
        var functionNames = [String]()
        var namespaces = [String: String]()
        for (index, item) in input.enumerated() {
            let type = item[Wire.type]?.stringValue
            if let role = item[Wire.role]?.stringValue, type == nil || type == Wire.message, !Wire.allowedRoles.contains(role) {
                return .failure(unsupported("input[\(index)].role"))
            }
            if type == Wire.itemReference {
                return .failure(Refusal(response: PublicAPIError.structured(
                    400, code: nil, param: "input[\(index)]", message: Wire.notPersisted
                )))
            }
            if type == Wire.additionalTools {
                guard item[Wire.role]?.stringValue == Wire.developer else { return .failure(unsupported("input[\(index)].role")) }
                for (toolIndex, tool) in (item[Wire.tools]?.arrayValue ?? []).enumerated() {
                    switch tool[Wire.type]?.stringValue {
                    case Wire.function?, Wire.custom?:
                        if let name = tool[Wire.name]?.stringValue { functionNames.append(name) }
                    case Wire.namespace?:
                        collect(namespace: tool, into: &functionNames, &namespaces)
                    default:
                        return .failure(unsupported("input[\(index)].tools[\(toolIndex)]"))
                    }
                }
            }
        }
        if let orphan = ResponsesRequestValidator.orphanOutputCallID(in: input) {
            return .failure(Refusal(response: PublicAPIError.structured(
                400, code: nil, param: Wire.input, message: "No tool call found for function call output with call_id \(orphan)."
            )))
        }
        if let rejection = ImageInput.rejection(in: input, maximumBytes: maximumImageBytes) {
            return .failure(Refusal(response: PublicAPIError.structured(400, code: Wire.invalidValue, param: Wire.input, message: rejection)))
        }
        if let tools = body[Wire.tools], tools != .null {
            guard let list = tools.arrayValue else { return .failure(unsupported(Wire.tools)) }
            for (index, tool) in list.enumerated() {
                switch tool[Wire.type]?.stringValue {
                case Wire.namespace?: collect(namespace: tool, into: &functionNames, &namespaces)
                case Wire.webSearch?, Wire.webSearchPreview?: continue
                case let type? where codexHarness && Wire.codexHarnessTools.contains(type): continue
                default: return .failure(unsupported("tools[\(index)]"))
                }
            }
        }
        let instructions = body[Wire.instructions]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        var request = ResponsesRequest(
            model: model,
            instructions: instructions,
            input: input,
            tools: body[Wire.tools]?.arrayValue ?? [],
            reasoning: body[Wire.reasoning].flatMap { $0 == .null ? nil : $0 },
            text: body[Wire.text].flatMap { $0 == .null ? nil : $0 },
            parallelToolCalls: body[Wire.parallelToolCalls]?.boolValue ?? false,
            include: body[Wire.include]?.arrayValue?.compactMap(\.stringValue) ?? [],
            promptCacheKey: body[Wire.promptCacheKey]?.stringValue,
            toolChoice: body[Wire.toolChoice] ?? "auto"
        )
        request.dialect = .publicAPI
        request.additionalFunctionNames = functionNames
        request.functionNamespaces = namespaces
        return .success(request)
    }

    private static func collect(namespace tool: JSONValue, into names: inout [String], _ namespaces: inout [String: String]) {
        let namespace = tool[Wire.name]?.stringValue ?? ""
        for inner in tool[Wire.tools]?.arrayValue ?? [] {
            guard let name = inner[Wire.name]?.stringValue else { continue }
            names.append(name)
            namespaces[name] = namespace
        }
    }

    private static func unsupported(_ param: String) -> Refusal {
        Refusal(response: PublicAPIError.structured(400, code: Wire.unsupportedCapability, param: param))
    }

    private enum Wire {
        static let rejectedFields = [
            "background", "conversation", "max_output_tokens", "max_tool_calls", "metadata", "moderation", "multi_agent",
            "prompt", "prompt_cache_retention", "safety_identifier", "temperature", "top_logprobs", "top_p", "truncation", "user",
            "previous_response_id", "service_tier",
        ]
        static let allowedRoles: Set<String> = ["user", "assistant", "developer"]
        static let developer = "developer"
        static let store = "store"
        static let stream = "stream"
        static let input = "input"
        static let model = "model"
        static let tools = "tools"
        static let type = "type"
        static let role = "role"
        static let name = "name"
        static let message = "message"
        static let function = "function"
        static let custom = "custom"
        static let namespace = "namespace"
        static let webSearch = "web_search"
        static let webSearchPreview = "web_search_preview"
        static let codexHarnessTools: Set<String> = ["function", "custom", "tool_search"]
        static let additionalTools = "additional_tools"
        static let itemReference = "item_reference"
        static let instructions = "instructions"
        static let reasoning = "reasoning"
        static let text = "text"
        static let include = "include"
        static let parallelToolCalls = "parallel_tool_calls"
        static let promptCacheKey = "prompt_cache_key"
        static let toolChoice = "tool_choice"
        static let invalidJSON = "invalid_json"
        static let invalidValue = "invalid_value"
        static let missingParameter = "missing_required_parameter"
        static let modelNotFound = "model_not_found"
        static let unsupportedCapability = "subscription_sharing_unsupported_capability"
        static let notAnObject = "The request body must be a JSON object."
        static let notPersisted = "Items are not persisted when `store` is false; resend the item itself."
    }
}
