/// What the ChatGPT backend rejects on `POST /backend-api/codex/responses` (PROTOCOL §4.7), with
/// its FastAPI `{"detail": …}` texts. Checks run in this order: JSON object, unsupported
/// parameters, `store`, `stream`, `input` type, `instructions`, `model`, item ids, tool outputs
/// without their call, `input_image` parts (``ImageInput``), tools, and a
/// structured-output schema that breaks strict mode's rules (``StructuredOutput``).
///
/// `instructions`: §4.7 says a missing value is rejected, but the Codex CLI 0.163.0 with a custom
/// provider sends no `instructions` key and puts the base prompt in the first `developer` message
/// (§12), and that request succeeds against the real service. So the emulator rejects a missing or
/// empty `instructions` only when the input also has no `developer` or `system` message.
///
/// Item ids: with `store:false` nothing is persisted, so an input item that only *references* a
/// stored item fails with "Item with id '…' not found…": an `item_reference`, or a `reasoning`
/// item with an `id` but no `encrypted_content` to rebuild it from. Items that carry their whole
/// content (messages with `msg_…` ids, as Codex 0.163.0 sends, function calls, reasoning with
/// `encrypted_content`) are accepted.
enum ResponsesRequestValidator {
    /// The validated request, or the 400 to send. Inline images larger than `maximumImageBytes`
    /// are refused (``ImageInput``).
    static func validate(_ body: JSONValue?, maximumImageBytes: Int = 20_000_000) -> Result<ResponsesRequest, ValidationFailure> {
        guard let body, body.objectMembers != nil else { return .failure(.init(Wire.invalidJSON)) }
        for parameter in Wire.unsupportedParameters where body[parameter] != nil {
            return .failure(.init(Wire.unsupported(parameter)))
        }
        guard body[Wire.store]?.boolValue == false else { return .failure(.init(Wire.storeMustBeFalse)) }
        guard body[Wire.stream]?.boolValue == true else { return .failure(.init(Wire.streamMustBeTrue)) }
        guard let input = body[Wire.input]?.arrayValue else { return .failure(.init(Wire.inputMustBeList)) }
        let instructions = body[Wire.instructions]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        if instructions == nil {
            let hasSystemPrompt = input.contains { item in
                let role = item[Wire.role]?.stringValue
                return role == Wire.developer || role == Wire.system
            }
            guard hasSystemPrompt else { return .failure(.init(Wire.instructionsRequired)) }
        }
        guard let model = body[Wire.model]?.stringValue, !model.isEmpty else {
            return .failure(.init(Wire.modelRequired))
        }
        for item in input {
            guard let id = item[Wire.id]?.stringValue else { continue }
            let type = item[Wire.type]?.stringValue
            let isReference = type == Wire.itemReference
            let isHollowReasoning = type == Wire.reasoning && (item[Wire.encryptedContent]?.stringValue ?? "").isEmpty
            if isReference || isHollowReasoning { return .failure(.init(Wire.itemNotFound(id))) }
        }
        if let orphan = orphanOutputCallID(in: input) { return .failure(.init(Wire.noToolCall(orphan))) }
        if let rejection = ImageInput.rejection(in: input, maximumBytes: maximumImageBytes) { return .failure(.init(rejection)) }
        if let tools = body[Wire.tools], tools.arrayValue == nil { return .failure(.init(Wire.toolsMustBeList)) }
        if let format = body[Wire.text]?[Wire.format], let rejection = StructuredOutput.rejection(of: format) {
            return .failure(.init(rejection))
        }
        for tool in body[Wire.tools]?.arrayValue ?? [] {
            if let rejection = StructuredOutput.rejection(ofTool: tool) { return .failure(.init(rejection)) }
        }
        let reasoning = body[Wire.reasoning].flatMap { $0 == .null ? nil : $0 }
        return .success(
            ResponsesRequest(
                model: model,
                instructions: instructions,
                input: input,
                tools: body[Wire.tools]?.arrayValue ?? [],
                reasoning: reasoning,
                text: body[Wire.text].flatMap { $0 == .null ? nil : $0 },
                parallelToolCalls: body[Wire.parallelToolCalls]?.boolValue ?? false,
                include: body[Wire.include]?.arrayValue?.compactMap(\.stringValue) ?? [],
                promptCacheKey: body[Wire.promptCacheKey]?.stringValue,
                toolChoice: body[Wire.toolChoice] ?? "auto"
            )
        )
    }

    /// The `call_id` of the first tool output whose call is not in the input, as the real server
    /// rejects: every `function_call_output` (or `custom_tool_call_output`) must follow its call.
    static func orphanOutputCallID(in input: [JSONValue]) -> String? {
        var calls = Set<String>()
        for item in input {
            guard let callID = item[Wire.callID]?.stringValue else { continue }
            switch item[Wire.type]?.stringValue {
            case Wire.functionCall?, Wire.customToolCall?, Wire.localShellCall?:
                calls.insert(callID)
            case Wire.functionCallOutput?, Wire.customToolCallOutput?:
                if !calls.contains(callID) { return callID }
            default:
                break
            }
        }
        return nil
    }

    /// A rejection carrying the `detail` text (always HTTP 400).
    struct ValidationFailure: Error, Sendable, Equatable {
        /// The FastAPI `detail` text.
        var detail: String
        init(_ detail: String) { self.detail = detail }
    }

    private enum Wire {
        static let store = "store"
        static let stream = "stream"
        static let input = "input"
        static let instructions = "instructions"
        static let model = "model"
        static let tools = "tools"
        static let reasoning = "reasoning"
        static let text = "text"
        static let format = "format"
        static let include = "include"
        static let parallelToolCalls = "parallel_tool_calls"
        static let promptCacheKey = "prompt_cache_key"
        static let toolChoice = "tool_choice"
        static let callID = "call_id"
        static let functionCall = "function_call"
        static let customToolCall = "custom_tool_call"
        static let localShellCall = "local_shell_call"
        static let functionCallOutput = "function_call_output"
        static let customToolCallOutput = "custom_tool_call_output"
        static func noToolCall(_ callID: String) -> String { "No tool call found for function call output with call_id \(callID)." }
        static let role = "role"
        static let developer = "developer"
        static let system = "system"
        static let id = "id"
        static let type = "type"
        static let itemReference = "item_reference"
        static let encryptedContent = "encrypted_content"
        static let unsupportedParameters = ["messages", "max_output_tokens", "max_tokens", "prompt_cache_retention"]
        static let invalidJSON = "Invalid request body: expected a JSON object"
        static let storeMustBeFalse = "Store must be set to false"
        static let streamMustBeTrue = "Stream must be set to true"
        static let inputMustBeList = "Input must be a list"
        static let instructionsRequired = "Instructions are required"
        static let modelRequired = "Model is required"
        static let toolsMustBeList = "Tools must be a list"
        static func unsupported(_ parameter: String) -> String { "Unsupported parameter: \(parameter)" }
        static func itemNotFound(_ id: String) -> String {
            "Item with id '\(id)' not found. Items are not persisted when `store` is set to false. "
                + "Try again with `store` set to true, or remove this item from your input."
        }
    }
}
