/// How hard the model thinks before it answers (`reasoning.effort`). The levels a model accepts
/// are in its catalog entry (``ChappieModel/supportedReasoningLevels``); a level it does not list
/// is refused before the request is sent. Unknown, newer levels are kept as their raw value.
public struct ChappieReasoningEffort: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral {
    /// The wire value (`low`, `medium`, …).
    public var rawValue: String

    /// Creates an effort from its wire value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates an effort from a string literal.
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    /// No reasoning.
    public static let none = ChappieReasoningEffort(rawValue: "none")
    /// The least reasoning.
    public static let minimal = ChappieReasoningEffort(rawValue: "minimal")
    /// Fast, shallow reasoning.
    public static let low = ChappieReasoningEffort(rawValue: "low")
    /// The usual default.
    public static let medium = ChappieReasoningEffort(rawValue: "medium")
    /// Deeper reasoning.
    public static let high = ChappieReasoningEffort(rawValue: "high")
    /// The deepest reasoning the model offers.
    public static let xhigh = ChappieReasoningEffort(rawValue: "xhigh")

    /// The levels `model` lists, as typed values, in the catalog's order.
    public static func levels(of model: ChappieModel) -> [ChappieReasoningEffort] {
        model.supportedReasoningLevels.map(ChappieReasoningEffort.init(rawValue:))
    }
}

/// Whether and how the model summarises its reasoning (`reasoning.summary`): the summary streams
/// as ``ChappieStreamEvent/reasoningSummaryDelta(_:)`` and ends up in
/// ``ChappieResponse/reasoningSummary``.
public enum ChappieReasoningSummary: String, Sendable, Hashable, Codable, CaseIterable {
    /// The model's choice of detail.
    case auto
    /// A short summary.
    case concise
    /// A detailed summary.
    case detailed
}

/// How long the model's answers are (`text.verbosity`).
public enum ChappieTextVerbosity: String, Sendable, Hashable, Codable, CaseIterable {
    /// Terse answers.
    case low
    /// The default.
    case medium
    /// Expansive answers.
    case high
}

extension ChappieMessageOptions {
    /// Options with a typed reasoning effort, a reasoning summary and a text verbosity (each nil
    /// for the model's default; no summary unless asked for).
    public init(effort: ChappieReasoningEffort?, reasoningSummary: ChappieReasoningSummary? = nil,
                verbosity: ChappieTextVerbosity? = nil) {
        self.init(reasoningEffort: effort?.rawValue)
        self.reasoningSummary = reasoningSummary
        self.verbosity = verbosity
    }

    /// The reasoning effort, typed (the same value as ``reasoningEffort``).
    public var effort: ChappieReasoningEffort? {
        get { reasoningEffort.map(ChappieReasoningEffort.init(rawValue:)) }
        set { reasoningEffort = newValue?.rawValue }
    }
}
