/// Assembles a ``ChappieResponse`` from decoded events and decides which text to show.
///
/// Deltas are shown as they come. `response.output_item.done` is authoritative (PROTOCOL §5.2):
/// when a message item's final text extends what its deltas showed, the missing suffix is shown
/// too, so a server that sends no deltas still streams its text.
struct ResponseAccumulator: Sendable {
    private(set) var responseID: String?
    private(set) var model: String?
    private(set) var items: [ChappieJSONValue] = []
    private var streamedByItem: [String: String] = [:]
    private var streamedWithoutItem = ""
    private var finalTexts: [String] = []
    private var reasoning = ""
    /// True once any text has been handed to the consumer.
    private(set) var hasShownOutput = false

    /// Records a text delta; returns the text to show (nil when empty).
    mutating func textDelta(_ text: String, itemID: String?) -> String? {
        guard !text.isEmpty else { return nil }
        if let itemID { streamedByItem[itemID, default: ""] += text } else { streamedWithoutItem += text }
        hasShownOutput = true
        return text
    }

    /// Records a reasoning-summary delta.
    mutating func reasoningDelta(_ text: String) -> String? {
        guard !text.isEmpty else { return nil }
        reasoning += text
        return text
    }

    /// Records a finished output item; returns text that was not streamed yet, if any.
    mutating func itemDone(_ item: ChappieJSONValue) -> String? {
        items.append(item)
        guard item[Wire.type]?.stringValue == Wire.message, item[Wire.role]?.stringValue ?? Wire.assistant == Wire.assistant else { return nil }
        let text = (item[Wire.content]?.arrayValue ?? [])
            .filter { $0[Wire.type]?.stringValue == Wire.outputText }
            .compactMap { $0[Wire.text]?.stringValue }
            .joined()
        finalTexts.append(text)
        let streamed = item[Wire.id]?.stringValue.flatMap { streamedByItem[$0] } ?? (streamedByItem.isEmpty ? streamedWithoutItem : "")
        // Compared as UTF-8 bytes: linear, and no grapheme counting of a long reply.
        guard text.utf8.count > streamed.utf8.count, text.utf8.starts(with: streamed.utf8) else { return nil }
        hasShownOutput = true
        return String(decoding: text.utf8.dropFirst(streamed.utf8.count), as: UTF8.self)
    }

    /// Notes the response id and model from `response.created`.
    mutating func created(id: String?, model: String?) {
        responseID = id ?? responseID
        self.model = model ?? self.model
    }

    /// The finished response.
    func response(id: String, model: String?, usage: ChappieTokenUsage?) -> ChappieResponse {
        let text = finalTexts.isEmpty ? streamedWithoutItem + streamedByItem.values.joined() : finalTexts.joined()
        return ChappieResponse(id: id, model: model ?? self.model, outputText: text, reasoningSummary: reasoning, usage: usage, items: items)
    }

    private enum Wire {
        static let type = "type"
        static let message = "message"
        static let role = "role"
        static let assistant = "assistant"
        static let content = "content"
        static let outputText = "output_text"
        static let text = "text"
        static let id = "id"
    }
}
