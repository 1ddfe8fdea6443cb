/// One step of the backend's web search while a reply is written: searching for a query,
/// opening a page, or looking for text in a page. Streamed as
/// ``ChappieStreamEvent/webSearch(_:)`` when the step starts and again when it finishes, so an app
/// can show "Searching for …" and "Reading …" as it happens. Web search is opt-in:
/// ``ChappieConfiguration/webSearch`` or ``ChappieMessageOptions/webSearch``.
public struct ChappieWebSearchCall: Sendable, Hashable, Codable {
    /// What the search step does.
    public enum Action: Sendable, Hashable, Codable {
        /// Searching the web for a query (nil when the server did not say which).
        case search(query: String?)
        /// Opening a page (nil when the server did not say which).
        case openPage(url: String?)
        /// Looking for `pattern` inside the page at `url`.
        case findInPage(url: String?, pattern: String?)
        /// A kind of step this SDK does not know (its wire `type`).
        case other(String)
    }

    /// The server's item id (`ws_…`); the same for a step's start and finish.
    public var id: String
    /// The step's status as the server sent it: `in_progress`, `searching`, `completed` or `failed`.
    public var status: String
    /// What the step does.
    public var action: Action

    /// True once the step has finished (`completed` or `failed`).
    public var isFinished: Bool { status == "completed" || status == "failed" }

    /// Creates a step value.
    public init(id: String, status: String, action: Action) {
        self.id = id
        self.status = status
        self.action = action
    }

    /// Reads a `web_search_call` output item
    /// (`{"type":"web_search_call","id":…,"status":…,"action":{"type":"search","query":…}}`, the
    /// Responses API's shape); nil for another item.
    init?(outputItem item: ChappieJSONValue) {
        guard item["type"]?.stringValue == "web_search_call" else { return nil }
        let action = item["action"]
        let kind = action?["type"]?.stringValue ?? ""
        let parsed: Action = switch kind {
        case "search": .search(query: action?["query"]?.stringValue)
        case "open_page": .openPage(url: action?["url"]?.stringValue)
        case "find_in_page", "find": .findInPage(url: action?["url"]?.stringValue, pattern: action?["pattern"]?.stringValue)
        default: .other(kind)
        }
        self.init(id: item["id"]?.stringValue ?? "", status: item["status"]?.stringValue ?? "in_progress", action: parsed)
    }
}

/// A source the model cited in its reply: a `url_citation` annotation on its text, with the
/// cited page and the span of text that relies on it: of ``ChappieResponse/outputText`` in
/// ``ChappieResponse/citations``, of the message's own text in
/// ``ChappieInputMessage/citations``.
public struct ChappieURLCitation: Sendable, Hashable, Codable {
    /// The cited page.
    public var url: String
    /// The page's title, as the server gave it ("" when none).
    public var title: String
    /// Where the cited span starts, in Unicode scalars (characters as the server counts them):
    /// in ``ChappieResponse/outputText`` for a response's citations, in the message's text for a
    /// message's.
    public var startIndex: Int
    /// Where the cited span ends (exclusive), in Unicode scalars.
    public var endIndex: Int

    /// Creates a citation.
    public init(url: String, title: String, startIndex: Int, endIndex: Int) {
        self.url = url
        self.title = title
        self.startIndex = startIndex
        self.endIndex = endIndex
    }

    /// The cited span of `text` (the response's ``ChappieResponse/outputText``, or the text of the
    /// message the citation belongs to), or nil when the indices do not fit it.
    public func range(in text: String) -> Range<String.Index>? {
        let scalars = text.unicodeScalars
        guard startIndex >= 0, startIndex <= endIndex, endIndex <= scalars.count else { return nil }
        let lower = scalars.index(scalars.startIndex, offsetBy: startIndex)
        let upper = scalars.index(lower, offsetBy: endIndex - startIndex)
        return lower..<upper
    }

    /// The `url_citation` annotations of a `message` item's `output_text` parts, in order. The
    /// server counts each part's indices from the start of that part; they are offset here by the
    /// parts before it, so they count from the start of the message's whole text.
    /// `offset` is added to every index (the length of the text before this message's).
    static func citations(inMessageItem item: ChappieJSONValue, startingAt start: Int = 0) -> [ChappieURLCitation] {
        guard item["type"]?.stringValue == "message" else { return [] }
        var result: [ChappieURLCitation] = []
        var offset = start
        for part in item["content"]?.arrayValue ?? [] where part["type"]?.stringValue == "output_text" {
            for annotation in part["annotations"]?.arrayValue ?? [] where annotation["type"]?.stringValue == "url_citation" {
                guard let url = annotation["url"]?.stringValue else { continue }
                result.append(ChappieURLCitation(url: url, title: annotation["title"]?.stringValue ?? "",
                                                 startIndex: offset + (annotation["start_index"]?.intValue ?? 0),
                                                 endIndex: offset + (annotation["end_index"]?.intValue ?? 0)))
            }
            offset += part["text"]?.stringValue?.unicodeScalars.count ?? 0
        }
        return result
    }

    /// The citations of a response's output `items`, counted in its ``ChappieResponse/outputText``
    /// (the text of its assistant messages joined): each message's are offset by the text before it.
    static func citations(inOutputItems items: [ChappieJSONValue]) -> [ChappieURLCitation] {
        var result: [ChappieURLCitation] = []
        var offset = 0
        for item in items where item["type"]?.stringValue == "message" && (item["role"]?.stringValue ?? "assistant") == "assistant" {
            result += citations(inMessageItem: item, startingAt: offset)
            offset += (item["content"]?.arrayValue ?? []).filter { $0["type"]?.stringValue == "output_text" }
                .reduce(0) { $0 + ($1["text"]?.stringValue?.unicodeScalars.count ?? 0) }
        }
        return result
    }
}
