/// A model from the live catalog (`GET /codex/models`).
public struct ChappieModel: Sendable, Hashable, Codable, Identifiable {
    /// The slug sent in requests, e.g. `gpt-5.5`.
    public var slug: String
    /// Same as ``slug``.
    public var id: String { slug }
    /// Name for people.
    public var displayName: String
    /// Longer description.
    public var description: String?
    /// Usable with ``ChappieResponseRequest``.
    public var supportedInAPI: Bool
    /// Server ordering; lower is preferred.
    public var priority: Int
    /// `list`, `hide` or `none`: whether pickers show it.
    public var visibility: String
    /// Input kinds, e.g. `text`, `image`.
    public var inputModalities: [String]
    /// Supports the search tool.
    public var supportsSearchTool: Bool
    /// Supports parallel tool calls.
    public var supportsParallelToolCalls: Bool
    /// Reasoning efforts it accepts, raw (`low`, `medium`, `high`, `xhigh`, or newer values).
    public var supportedReasoningLevels: [String]
    /// Its default reasoning effort.
    public var defaultReasoningLevel: String?
    /// Context window in tokens, when known.
    public var contextWindow: Int?

    /// Creates a model value.
    public init(slug: String, displayName: String, description: String? = nil, supportedInAPI: Bool = true, priority: Int = 0,
                visibility: String = "list", inputModalities: [String] = ["text", "image"], supportsSearchTool: Bool = false,
                supportsParallelToolCalls: Bool = false, supportedReasoningLevels: [String] = [], defaultReasoningLevel: String? = nil,
                contextWindow: Int? = nil) {
        self.slug = slug
        self.displayName = displayName
        self.description = description
        self.supportedInAPI = supportedInAPI
        self.priority = priority
        self.visibility = visibility
        self.inputModalities = inputModalities
        self.supportsSearchTool = supportsSearchTool
        self.supportsParallelToolCalls = supportsParallelToolCalls
        self.supportedReasoningLevels = supportedReasoningLevels
        self.defaultReasoningLevel = defaultReasoningLevel
        self.contextWindow = contextWindow
    }

    /// Reads one catalog entry; nil when a required field (slug, display name) is missing.
    /// Unknown fields are ignored and unknown efforts kept raw.
    init?(catalogEntry value: ChappieJSONValue) {
        guard let entry = value.objectValue, let slug = entry[Wire.slug]?.stringValue, !slug.isEmpty else { return nil }
        self.init(
            slug: slug,
            displayName: entry[Wire.displayName]?.stringValue ?? slug,
            description: entry[Wire.description]?.stringValue,
            supportedInAPI: entry[Wire.supportedInAPI]?.boolValue ?? false,
            priority: entry[Wire.priority]?.intValue ?? Int.max,
            visibility: entry[Wire.visibility]?.stringValue ?? "list",
            inputModalities: entry[Wire.inputModalities]?.arrayValue?.compactMap(\.stringValue) ?? ["text", "image"],
            supportsSearchTool: entry[Wire.supportsSearchTool]?.boolValue ?? false,
            supportsParallelToolCalls: entry[Wire.supportsParallelToolCalls]?.boolValue ?? false,
            supportedReasoningLevels: entry[Wire.reasoningLevels]?.arrayValue?.compactMap { $0[Wire.effort]?.stringValue ?? $0.stringValue } ?? [],
            defaultReasoningLevel: entry[Wire.defaultReasoningLevel]?.stringValue,
            contextWindow: entry[Wire.contextWindow]?.intValue)
    }

    /// Reads one entry of the public API's catalog (`GET /v1/models`, SIWC.md §4.1) at
    /// `position` in the server's order; nil without a slug. Its documented fields are `slug`,
    /// `display_name` and `visibility` (an entry without one is not listed); fields of the Codex
    /// catalog are read when present, unknown ones ignored. Every entry is usable in requests
    /// and takes text unless it says otherwise; the server's order is the priority.
    init?(publicCatalogEntry value: ChappieJSONValue, position: Int) {
        guard var model = ChappieModel(catalogEntry: value), let entry = value.objectValue else { return nil }
        model.supportedInAPI = entry[Wire.supportedInAPI]?.boolValue ?? true
        model.priority = position
        model.visibility = entry[Wire.visibility]?.stringValue ?? ""
        self = model
    }

    /// The `visibility` of a model that pickers show.
    static let listedVisibility = "list"

    private enum Wire {
        static let slug = "slug"
        static let displayName = "display_name"
        static let description = "description"
        static let supportedInAPI = "supported_in_api"
        static let priority = "priority"
        static let visibility = "visibility"
        static let inputModalities = "input_modalities"
        static let supportsSearchTool = "supports_search_tool"
        static let supportsParallelToolCalls = "supports_parallel_tool_calls"
        static let reasoningLevels = "supported_reasoning_levels"
        static let effort = "effort"
        static let defaultReasoningLevel = "default_reasoning_level"
        static let contextWindow = "context_window"
    }
}

/// Criteria for ``ChappieClient/models(filter:)``; nil fields match anything.
public struct ChappieModelFilter: Sendable, Hashable, Codable {
    /// Required `supportedInAPI` value.
    public var supportedInAPI: Bool?
    /// An input modality the model must accept, e.g. `text`.
    public var inputModality: String?
    /// Required search-tool support.
    public var supportsSearchTool: Bool?
    /// Required parallel-tool-call support.
    public var supportsParallelToolCalls: Bool?
    /// A reasoning effort the model must accept.
    public var reasoningLevel: String?

    /// Creates a filter.
    public init(supportedInAPI: Bool? = nil, inputModality: String? = nil, supportsSearchTool: Bool? = nil,
                supportsParallelToolCalls: Bool? = nil, reasoningLevel: String? = nil) {
        self.supportedInAPI = supportedInAPI
        self.inputModality = inputModality
        self.supportsSearchTool = supportsSearchTool
        self.supportsParallelToolCalls = supportsParallelToolCalls
        self.reasoningLevel = reasoningLevel
    }

    /// True when `model` meets every set criterion.
    public func matches(_ model: ChappieModel) -> Bool {
        (supportedInAPI.map { $0 == model.supportedInAPI } ?? true)
            && (inputModality.map { model.inputModalities.contains($0) } ?? true)
            && (supportsSearchTool.map { $0 == model.supportsSearchTool } ?? true)
            && (supportsParallelToolCalls.map { $0 == model.supportsParallelToolCalls } ?? true)
            && (reasoningLevel.map { model.supportedReasoningLevels.contains($0) } ?? true)
    }
}
