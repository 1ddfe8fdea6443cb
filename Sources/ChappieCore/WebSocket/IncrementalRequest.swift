/// Builds the `response.create` frame for a request on a Responses WebSocket (PROTOCOL §6.2–6.3),
/// the way the Codex CLI 0.163 does: on a socket that already answered a request, when the new
/// request equals that one in every field but `input`, and its `input` starts with that request's
/// input followed by the output items it returned, only the new tail is sent, with
/// `previous_response_id`; otherwise (a new socket, a changed field, history that was rewritten,
/// compaction) the full request. Pure: the ``ResponsesSocket`` keeps the memory.
enum IncrementalRequest {
    /// What a socket remembers of its last completed exchange.
    struct Memory: Sendable, Equatable {
        /// The last request's fields, `input` included (the full, logical request).
        var request: [String: ChappieJSONValue]
        /// The id of the response it got.
        var responseID: String
        /// The response's output items, in the form the client sends them back as input.
        var outputItems: [ChappieJSONValue]
    }

    /// The frame for `body` (an HTTP request body) after `memory`; `generate: false` makes a
    /// prewarm; `turnState` goes into `client_metadata`. Returns the frame text and whether it
    /// is incremental.
    static func frame(for body: ChappieJSONValue, after memory: Memory?, turnState: String?, generate: Bool = true)
        -> (text: String, incremental: Bool) {
        guard var object = body.objectValue else { return (body.jsonString, false) }
        object[Wire.stream] = nil
        var incremental = false
        if let memory, let tail = tail(of: object, after: memory) {
            object[Wire.input] = .array(tail)
            object[Wire.previousResponseID] = .string(memory.responseID)
            incremental = true
        }
        object[Wire.type] = .string(Wire.responseCreate)
        if !generate { object[Wire.generate] = false }
        if let turnState { object[Wire.clientMetadata] = [Wire.turnStateKey: .string(turnState)] }
        return (ChappieJSONValue.object(object).jsonString, incremental)
    }

    /// The memory a socket keeps after `body` was answered by `responseID` with `outputItems`.
    static func memory(of body: ChappieJSONValue, responseID: String, outputItems: [ChappieJSONValue]) -> Memory? {
        guard var object = body.objectValue else { return nil }
        object[Wire.stream] = nil
        return Memory(request: object, responseID: responseID, outputItems: outputItems)
    }

    /// The input items past what the socket already has, or nil when the request is not an
    /// extension of the remembered one.
    private static func tail(of request: [String: ChappieJSONValue], after memory: Memory) -> [ChappieJSONValue]? {
        var withoutInput = request
        var previousWithoutInput = memory.request
        withoutInput[Wire.input] = nil
        previousWithoutInput[Wire.input] = nil
        guard withoutInput == previousWithoutInput, let input = request[Wire.input]?.arrayValue else { return nil }
        let known = (memory.request[Wire.input]?.arrayValue ?? []) + memory.outputItems
        guard input.count >= known.count, input.starts(with: known) else { return nil }
        return Array(input.dropFirst(known.count))
    }

    private enum Wire {
        static let type = "type"
        static let responseCreate = "response.create"
        static let stream = "stream"
        static let input = "input"
        static let previousResponseID = "previous_response_id"
        static let generate = "generate"
        static let clientMetadata = "client_metadata"
        static let turnStateKey = "x-codex-turn-state"
    }
}
