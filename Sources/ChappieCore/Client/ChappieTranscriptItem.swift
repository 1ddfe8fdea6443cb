/// One item of a conversation as the backend sees it: a message, a function call
/// the model made, the output the app returned for it, or a reasoning item replayed verbatim.
public enum ChappieTranscriptItem: Sendable, Hashable, Codable {
    /// A message from the system, developer, user or assistant.
    case message(ChappieInputMessage)
    /// A function call the model made.
    case functionCall(ChappieFunctionCall)
    /// The output the app returned for the call with `callID`.
    case functionCallOutput(callID: String, output: String)
    /// A reasoning item (`summary`, `encrypted_content`), kept so the model keeps its chain of
    /// thought across `store:false` turns; its server `id` is removed.
    case reasoning(ChappieJSONValue)
    /// A server compaction item (`encrypted_content`) that stands for the history it replaced
    /// (``ChappieClient/compactContext()``); replayed at the head of later requests.
    case compaction(ChappieJSONValue)

    /// The message, when this is one.
    public var message: ChappieInputMessage? { if case .message(let message) = self { message } else { nil } }

    /// This item with its message's attachment bytes left out
    /// (``ChappieInputMessage/withoutAttachmentData``): what a thread store keeps.
    public var withoutAttachmentData: ChappieTranscriptItem {
        if case .message(let message) = self, message.attachments.contains(where: { $0.data != nil }) {
            return .message(message.withoutAttachmentData)
        }
        return self
    }

    /// The input item JSON for a request. Never carries an `id` (the backend rejects ids of
    /// items that were not stored, PROTOCOL §4.7).
    var inputItem: ChappieJSONValue {
        switch self {
        case .message(let message):
            return ResponsesRequestBody.item(for: message)
        case .functionCall(let call):
            return [Wire.type: "function_call", Wire.name: .string(call.name), Wire.arguments: .string(call.arguments),
                    Wire.callID: .string(call.callID)]
        case .functionCallOutput(let callID, let output):
            return [Wire.type: "function_call_output", Wire.callID: .string(callID), Wire.output: .string(output)]
        case .reasoning(let item), .compaction(let item):
            guard var object = item.objectValue else { return item }
            object[Wire.id] = nil
            return .object(object)
        }
    }

    /// The `input` array for `items`, with calls and outputs paired (FAILURE-CASES #33): an output
    /// whose call is missing is dropped, and a call without an output gets a synthetic "no result"
    /// output right after it, so a saved or interrupted history never makes the server reject the
    /// request.
    /// Inline images are kept to ``ChappieAttachment/maximumImageBytesPerRequest`` (``fittingImages(_:limit:)``).
    static func replayInput(_ items: [ChappieTranscriptItem]) -> [ChappieJSONValue] {
        let items = fittingImages(items)
        var callIDs = Set<String>()
        var outputIDs = Set<String>()
        for item in items {
            if case .functionCall(let call) = item { callIDs.insert(call.callID) }
            if case .functionCallOutput(let callID, _) = item { outputIDs.insert(callID) }
        }
        var input: [ChappieJSONValue] = []
        for item in items {
            if case .functionCallOutput(let callID, _) = item, !callIDs.contains(callID) { continue }
            input.append(item.inputItem)
            if case .functionCall(let call) = item, !outputIDs.contains(call.callID) {
                input.append(ChappieTranscriptItem.functionCallOutput(callID: call.callID, output: Wire.noResult).inputItem)
            }
        }
        return input
    }

    /// `items` with the bytes of the oldest inline images left out (each then goes as a short
    /// note, ``ChappieAttachment/contentPart``) once the newer images take `limit` bytes: the
    /// newest images always go, so a long conversation with photos never outgrows a request.
    static func fittingImages(_ items: [ChappieTranscriptItem], limit: Int = ChappieAttachment.maximumImageBytesPerRequest)
        -> [ChappieTranscriptItem] {
        var total = 0
        var result = items
        for index in items.indices.reversed() {
            guard case .message(var message) = items[index], message.attachments.contains(where: { $0.data != nil }) else { continue }
            var changed = false
            for position in message.attachments.indices.reversed() {
                guard let data = message.attachments[position].data else { continue }
                if total + data.count > limit {
                    message.attachments[position] = message.attachments[position].withoutData
                    changed = true
                } else {
                    total += data.count
                }
            }
            if changed { result[index] = .message(message) }
        }
        return result
    }

    /// The transcript items for a server output item; nil for kinds that are not replayed.
    static func fromOutputItem(_ item: ChappieJSONValue) -> ChappieTranscriptItem? {
        switch item[Wire.type]?.stringValue {
        case "message":
            let text = (item[Wire.content]?.arrayValue ?? []).compactMap { $0[Wire.text]?.stringValue }.joined()
            switch item[Wire.role]?.stringValue {
            case "user": return .message(.user(text))
            case "developer": return .message(.developer(text))
            case "system": return .message(.system(text))
            default:
                return .message(ChappieInputMessage(role: .assistant, text: text, citations: ChappieURLCitation.citations(inMessageItem: item)))
            }
        case "compaction", "compaction_summary":
            return .compaction(item)
        case "function_call":
            guard let call = ChappieFunctionCall(outputItem: item) else { return nil }
            return .functionCall(call)
        case "reasoning":
            return .reasoning(item)
        default:
            return nil
        }
    }

    private enum Wire {
        static let type = "type"
        static let name = "name"
        static let arguments = "arguments"
        static let callID = "call_id"
        static let output = "output"
        static let id = "id"
        static let content = "content"
        static let text = "text"
        static let role = "role"
        static let noResult = #"{"error":"no result: the call was interrupted before it finished"}"#
    }
}

/// A function call from the model: which tool, with which JSON arguments (as sent, a string).
public struct ChappieFunctionCall: Sendable, Hashable, Codable {
    /// The call id (`call_…`) that its output must echo.
    public var callID: String
    /// The tool name.
    public var name: String
    /// The arguments as the model wrote them: JSON text, possibly malformed.
    public var arguments: String

    /// Creates a call value.
    public init(callID: String, name: String, arguments: String) {
        self.callID = callID
        self.name = name
        self.arguments = arguments
    }

    /// Reads a `function_call` output item; nil without a call id or name.
    init?(outputItem item: ChappieJSONValue) {
        guard let callID = item["call_id"]?.stringValue, let name = item["name"]?.stringValue else { return nil }
        self.init(callID: callID, name: name, arguments: item["arguments"]?.stringValue ?? "")
    }
}
