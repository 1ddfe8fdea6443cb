import Foundation

/// Builds the SSE events of one streamed response (PROTOCOL §5, realistic order of §5.6): each
/// event is `event: <type>\ndata: <json>\n\n` with a `sequence_number` counting from 0, `response`
/// objects shaped like the Responses API (`id`, `object`, `created_at`, `status`, `model`, `output`,
/// `usage`, …), and `item_id`/`output_index`/`content_index` on deltas.
struct ResponseEventStream: Sendable {
    /// One event.
    struct Event: Sendable {
        /// The event `type`.
        var type: String
        /// The JSON payload (the SSE `data:` line, or one WebSocket text frame).
        var payload: String
        /// The SSE encoding, ready to send as one chunk.
        var sseBytes: Data { Data("event: \(type)\ndata: \(payload)\n\n".utf8) }
    }

    private let request: ResponsesRequest
    /// The `resp_…` id of this response.
    let responseID = RandomIdentifier.prefixed("resp_")
    private let createdAt = Int(Date().timeIntervalSince1970)
    private let deltaCharacters: Int
    private var sequenceNumber = 0
    private(set) var events = [Event]()
    /// The output items produced so far (the `output` of `response.completed`).
    private(set) var output = [JSONValue]()
    private var outputTokens = 0
    private var reasoningTokens = 0
    /// Seals the `encrypted_content` of reasoning items.
    private let sealer: ContentSealer

    /// Starts a stream for `request`, splitting text into deltas of `deltaCharacters` characters;
    /// `sealer` seals its reasoning items' `encrypted_content`.
    init(request: ResponsesRequest, deltaCharacters: Int, sealer: ContentSealer) {
        self.request = request
        self.deltaCharacters = deltaCharacters
        self.sealer = sealer
    }

    /// `response.created` then `response.in_progress`.
    mutating func begin() {
        let snapshot = response(status: Wire.inProgress, output: [], usage: .null)
        emit(Wire.created, [(Wire.response, snapshot)])
        emit(Wire.progress, [(Wire.response, snapshot)])
    }

    /// A reasoning item (with a summary when `reasoning.summary` was requested, and
    /// `encrypted_content` when `include` asked for it).
    mutating func reasoning(summary: String) {
        let itemID = RandomIdentifier.prefixed("rs_")
        let outputIndex = output.count
        let wantsSummary = ["auto", "concise", "detailed"].contains(request.reasoning?["summary"]?.stringValue ?? "")
        let encrypted: JSONValue? = request.include.contains(Wire.encryptedInclude)
            ? .string(sealer.seal(responseID + itemID)) : nil
        func item(_ summaryParts: [JSONValue]) -> JSONValue {
            var members: [(String, JSONValue)] = [(Wire.id, .string(itemID)), (Wire.type, "reasoning"), ("summary", .array(summaryParts))]
            if let encrypted { members.append(("encrypted_content", encrypted)) }
            return .object(members)
        }
        emit(Wire.itemAdded, [(Wire.outputIndex, .int(outputIndex)), (Wire.item, item([]))])
        var parts = [JSONValue]()
        if wantsSummary {
            let location: [(String, JSONValue)] = [
                (Wire.itemID, .string(itemID)), (Wire.outputIndex, .int(outputIndex)), ("summary_index", 0),
            ]
            emit("response.reasoning_summary_part.added", location + [("part", ["type": "summary_text", "text": ""])])
            for piece in pieces(summary) {
                emit("response.reasoning_summary_text.delta", location + [(Wire.delta, .string(piece))])
            }
            emit("response.reasoning_summary_text.done", location + [(Wire.text, .string(summary))])
            let part: JSONValue = ["type": "summary_text", "text": .string(summary)]
            emit("response.reasoning_summary_part.done", location + [("part", part)])
            parts = [part]
        }
        let done = item(parts)
        emit(Wire.itemDone, [(Wire.outputIndex, .int(outputIndex)), (Wire.item, done)])
        output.append(done)
        reasoningTokens += max(1, summary.count / 4)
    }

    /// An assistant message streamed as several `output_text.delta` events. `stopAfterDeltas`
    /// leaves the item unfinished after that many deltas (for `response.incomplete`).
    mutating func message(_ text: String, stopAfterDeltas: Int? = nil, annotations: [JSONValue] = []) {
        let itemID = RandomIdentifier.prefixed("msg_")
        let outputIndex = output.count
        let phase = request.dialect == .publicAPI ? Wire.finalAnswer : nil
        func item(status: String, content: [JSONValue]) -> JSONValue {
            var members: [(String, JSONValue)] = [
                (Wire.id, .string(itemID)), (Wire.type, "message"), (Wire.status, .string(status)),
                ("content", .array(content)), ("role", "assistant"),
            ]
            if let phase { members.append(("phase", .string(phase))) }
            return .object(members)
        }
        func part(_ text: String, annotations: [JSONValue] = []) -> JSONValue {
            ["type": "output_text", "annotations": .array(annotations), "logprobs": [], "text": .string(text)]
        }
        emit(Wire.itemAdded, [(Wire.outputIndex, .int(outputIndex)), (Wire.item, item(status: Wire.inProgress, content: []))])
        let location: [(String, JSONValue)] = [
            (Wire.itemID, .string(itemID)), (Wire.outputIndex, .int(outputIndex)), ("content_index", 0),
        ]
        emit("response.content_part.added", location + [("part", part(""))])
        var sent = ""
        for (index, piece) in pieces(text).enumerated() {
            if let stop = stopAfterDeltas, index >= stop {
                output.append(item(status: "incomplete", content: [part(sent)]))
                outputTokens += max(1, sent.count / 4)
                return
            }
            sent += piece
            emit("response.output_text.delta", location + [(Wire.delta, .string(piece)), ("logprobs", [])])
        }
        for (index, annotation) in annotations.enumerated() {
            emit("response.output_text.annotation.added", location + [("annotation_index", .int(index)), ("annotation", annotation)])
        }
        emit("response.output_text.done", location + [(Wire.text, .string(text)), ("logprobs", [])])
        emit("response.content_part.done", location + [("part", part(text, annotations: annotations))])
        let done = item(status: Wire.completed, content: [part(text, annotations: annotations)])
        emit(Wire.itemDone, [(Wire.outputIndex, .int(outputIndex)), (Wire.item, done)])
        output.append(done)
        outputTokens += max(1, (text.count + 3) / 4)
    }

    /// A `web_search_call` item doing `action` (`{"type":"search","query":…}` or
    /// `{"type":"open_page","url":…}`): `output_item.added` (in progress), the
    /// `response.web_search_call.in_progress` / `.searching` / `.completed` events, then
    /// `output_item.done` (completed), as the Responses API streams a hosted search.
    mutating func webSearchCall(action: JSONValue) {
        let itemID = RandomIdentifier.prefixed("ws_")
        let outputIndex = output.count
        func item(status: String) -> JSONValue {
            [Wire.id: .string(itemID), Wire.type: "web_search_call", Wire.status: .string(status), "action": action]
        }
        emit(Wire.itemAdded, [(Wire.outputIndex, .int(outputIndex)), (Wire.item, item(status: Wire.inProgress))])
        let location: [(String, JSONValue)] = [(Wire.outputIndex, .int(outputIndex)), (Wire.itemID, .string(itemID))]
        for phase in ["in_progress", "searching", "completed"] {
            emit("response.web_search_call.\(phase)", location)
        }
        let done = item(status: Wire.completed)
        emit(Wire.itemDone, [(Wire.outputIndex, .int(outputIndex)), (Wire.item, done)])
        output.append(done)
    }

    /// A `function_call` item calling `name` with `arguments` (JSON text), arguments streamed in deltas.
    mutating func functionCall(name: String, arguments: String) {
        let itemID = RandomIdentifier.prefixed("fc_")
        let callID = RandomIdentifier.prefixed("call_", hexCount: 24)
        let outputIndex = output.count
        let namespace = request.functionNamespaces[name]
        func item(status: String, arguments: String) -> JSONValue {
            var members: [(String, JSONValue)] = [
                (Wire.id, .string(itemID)), (Wire.type, "function_call"), (Wire.status, .string(status)),
                ("arguments", .string(arguments)), ("call_id", .string(callID)), ("name", .string(name)),
            ]
            if let namespace { members.append(("namespace", .string(namespace))) }
            return .object(members)
        }
        emit(Wire.itemAdded, [(Wire.outputIndex, .int(outputIndex)), (Wire.item, item(status: Wire.inProgress, arguments: ""))])
        let location: [(String, JSONValue)] = [(Wire.itemID, .string(itemID)), (Wire.outputIndex, .int(outputIndex))]
        for piece in pieces(arguments) {
            emit("response.function_call_arguments.delta", location + [(Wire.delta, .string(piece))])
        }
        emit("response.function_call_arguments.done", location + [("name", .string(name)), ("arguments", .string(arguments))])
        let done = item(status: Wire.completed, arguments: arguments)
        emit(Wire.itemDone, [(Wire.outputIndex, .int(outputIndex)), (Wire.item, done)])
        output.append(done)
        outputTokens += max(1, (arguments.count + name.count + 3) / 4)
    }

    /// A `compaction` item (remote compaction v2) with an `id` (`cmp_…`, as every output item has
    /// one) and `encryptedContent` as its `encrypted_content`, or without that field when nil.
    /// Codex reads the item from `response.output_item.done` (`codex-rs/core/src/compact_remote_v2.rs`).
    mutating func compaction(encryptedContent: String?) {
        let outputIndex = output.count
        var members: [(String, JSONValue)] = [(Wire.id, .string(RandomIdentifier.prefixed("cmp_"))), (Wire.type, "compaction")]
        emit(Wire.itemAdded, [(Wire.outputIndex, .int(outputIndex)), (Wire.item, .object(members))])
        if let encryptedContent { members.append(("encrypted_content", .string(encryptedContent))) }
        let done = JSONValue.object(members)
        emit(Wire.itemDone, [(Wire.outputIndex, .int(outputIndex)), (Wire.item, done)])
        output.append(done)
        outputTokens += max(1, (encryptedContent?.count ?? 0) / 16)
    }

    /// Forgets the output items produced so far (an interrupt with `discard_partial_items`), so a
    /// terminal event that follows reports `output: []`.
    mutating func discardOutput() {
        output = []
    }

    /// Drops every event after the first `count` (a disconnect fault).
    mutating func keepOnly(firstEvents count: Int) {
        events = Array(events.prefix(count))
    }

    /// `response.completed` with the assembled output (or none, when the request asks for the
    /// public API's empty-output quirk) and usage.
    mutating func complete() {
        let completedOutput = request.completedOutputIsEmpty ? [] : output
        emit("response.completed", [(Wire.response, response(status: Wire.completed, output: completedOutput, usage: usage()))])
    }

    /// `response.failed` with `error.code` and `error.message`.
    mutating func fail(code: String, message: String) {
        let error: JSONValue = ["code": .string(code), "message": .string(message)]
        emit("response.failed", [(Wire.response, response(status: "failed", output: output, usage: usage(), error: error))])
    }

    /// An `error` event inside the stream (FAILURE-CASES 20b):
    /// `{"type":"error","error":{"type":…,"code":…,"message":…,"param":null},"sequence_number":…}`.
    mutating func error(type: String, code: String, message: String) {
        let error: JSONValue = ["type": .string(type), "code": .string(code), "message": .string(message), "param": .null]
        emit("error", [("error", error)])
    }

    /// A flat `error` event of the public API (SIWC.md §4.3):
    /// `{"type":"error","code":…,"message":…,"param":null,"sequence_number":…}`.
    mutating func flatError(code: String, message: String) {
        emit("error", [("code", .string(code)), ("message", .string(message)), ("param", .null)])
    }

    /// `response.incomplete` with `incomplete_details.reason`.
    mutating func incomplete(reason: String) {
        let details: JSONValue = ["reason": .string(reason)]
        emit("response.incomplete", [
            (Wire.response, response(status: "incomplete", output: output, usage: usage(), incompleteDetails: details))
        ])
    }

    /// The `usage` object of `response.completed` (PROTOCOL §5.3); input tokens ≈ characters / 4.
    func usage() -> JSONValue {
        let inputTokens = max(1, (request.inputCharacterCount + 3) / 4)
        let output = outputTokens + reasoningTokens
        return [
            "input_tokens": .int(inputTokens),
            "input_tokens_details": ["cached_tokens": 0, "cache_write_tokens": 0],
            "output_tokens": .int(output),
            "output_tokens_details": ["reasoning_tokens": .int(reasoningTokens)],
            "total_tokens": .int(inputTokens + output),
        ]
    }

    private func pieces(_ text: String) -> [String] {
        guard !text.isEmpty else { return [] }
        var result = [String]()
        var current = ""
        for character in text {
            current.append(character)
            if current.count == deltaCharacters {
                result.append(current)
                current = ""
            }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    private mutating func emit(_ type: String, _ fields: [(String, JSONValue)]) {
        let payload = JSONValue.object([(Wire.type, .string(type))] + fields + [(Wire.sequenceNumber, .int(sequenceNumber))])
        sequenceNumber += 1
        events.append(Event(type: type, payload: payload.serialized))
    }

    private func response(
        status: String, output: [JSONValue], usage: JSONValue, error: JSONValue = .null, incompleteDetails: JSONValue = .null
    ) -> JSONValue {
        let reasoning: JSONValue = request.reasoning.map { reasoning in
            ["effort": reasoning["effort"] ?? .null, "summary": reasoning["summary"] ?? .null]
        } ?? ["effort": .null, "summary": .null]
        var text: [(String, JSONValue)] = [("format", request.text?["format"] ?? ["type": "text"])]
        text.append(("verbosity", request.text?["verbosity"] ?? "medium"))
        return [
            Wire.id: .string(responseID),
            "object": "response",
            "created_at": .int(createdAt),
            Wire.status: .string(status),
            "background": false,
            "error": error,
            "incomplete_details": incompleteDetails,
            "instructions": request.instructions.map(JSONValue.string) ?? .null,
            "max_output_tokens": .null,
            "max_tool_calls": .null,
            "model": .string(request.model),
            "output": .array(output),
            "parallel_tool_calls": .bool(request.parallelToolCalls),
            "previous_response_id": request.previousResponseID.map(JSONValue.string) ?? .null,
            "prompt_cache_key": request.promptCacheKey.map(JSONValue.string) ?? .null,
            "reasoning": reasoning,
            "service_tier": "auto",
            "store": false,
            "temperature": 1.0,
            "text": .object(text),
            "tool_choice": request.toolChoice,
            "tools": .array(request.tools),
            "top_logprobs": 0,
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": usage,
            "user": .null,
            "metadata": [:],
        ]
    }

    private enum Wire {
        static let type = "type"
        static let id = "id"
        static let status = "status"
        static let response = "response"
        static let item = "item"
        static let itemID = "item_id"
        static let outputIndex = "output_index"
        static let delta = "delta"
        static let text = "text"
        static let sequenceNumber = "sequence_number"
        static let inProgress = "in_progress"
        static let completed = "completed"
        static let created = "response.created"
        static let progress = "response.in_progress"
        static let itemAdded = "response.output_item.added"
        static let itemDone = "response.output_item.done"
        static let encryptedInclude = "reasoning.encrypted_content"
        static let finalAnswer = "final_answer"
    }
}
