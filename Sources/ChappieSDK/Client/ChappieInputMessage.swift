/// Per-message options.
public struct ChappieMessageOptions: Sendable, Hashable, Codable {
    /// Ask for low reasoning effort: a faster, shallower answer.
    public var fastMode: Bool
    /// A specific reasoning effort (`minimal`, `low`, `medium`, `high`, `xhigh`, or newer values);
    /// nil uses the model's default. Ignored when `fastMode` is on.
    public var reasoningEffort: String?
    /// A summary of the model's reasoning, streamed as ``ChappieStreamEvent/reasoningSummaryDelta(_:)``;
    /// nil asks for none.
    public var reasoningSummary: ChappieReasoningSummary?
    /// How long the answer should be; nil for the model's default.
    public var verbosity: ChappieTextVerbosity?

    /// Creates options.
    public init(fastMode: Bool = false, reasoningEffort: String? = nil) {
        self.fastMode = fastMode
        self.reasoningEffort = reasoningEffort
    }

    /// The effort to send: `low` in fast mode, else the chosen effort.
    var effectiveEffort: String? { fastMode ? "low" : reasoningEffort }
}

/// One message of a conversation, by role. Stored in ``ChappieClientContext/messages``.
public struct ChappieInputMessage: Sendable, Hashable, Codable {
    /// Who wrote the message.
    public enum Role: String, Sendable, Hashable, Codable {
        /// Instructions from the app (sent as a developer message).
        case system
        /// Instructions from the app developer.
        case developer
        /// The user.
        case user
        /// The model.
        case assistant
    }

    /// Who wrote it.
    public var role: Role
    /// The text.
    public var text: String
    /// Options for the turn this message starts.
    public var options: ChappieMessageOptions
    /// True for an assistant reply cut short by a failure or a cancellation: the text that was
    /// shown before it, kept in the conversation so the model sees what the user saw.
    public var isPartial: Bool

    /// Creates a message.
    public init(role: Role, text: String, options: ChappieMessageOptions = ChappieMessageOptions(), isPartial: Bool = false) {
        self.role = role
        self.text = text
        self.options = options
        self.isPartial = isPartial
    }

    private enum CodingKeys: String, CodingKey { case role, text, options, isPartial }

    /// Decodes a message; `isPartial` may be absent (messages saved before it existed).
    /// Throws `DecodingError` when `role`, `text` or `options` are missing or malformed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        role = try container.decode(Role.self, forKey: .role)
        text = try container.decode(String.self, forKey: .text)
        options = try container.decode(ChappieMessageOptions.self, forKey: .options)
        isPartial = try container.decodeIfPresent(Bool.self, forKey: .isPartial) ?? false
    }

    /// Encodes the message; `isPartial` only when true, so complete messages encode as before.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(role, forKey: .role)
        try container.encode(text, forKey: .text)
        try container.encode(options, forKey: .options)
        if isPartial { try container.encode(true, forKey: .isPartial) }
    }

    /// A system message (sent to the backend with the `developer` role).
    public static func system(_ text: String) -> ChappieInputMessage { ChappieInputMessage(role: .system, text: text) }
    /// A developer message.
    public static func developer(_ text: String) -> ChappieInputMessage { ChappieInputMessage(role: .developer, text: text) }
    /// A user message; `fastMode` asks for low reasoning effort.
    public static func user(_ text: String, fastMode: Bool = false) -> ChappieInputMessage {
        ChappieInputMessage(role: .user, text: text, options: ChappieMessageOptions(fastMode: fastMode))
    }
    /// A user message with options.
    public static func user(_ text: String, options: ChappieMessageOptions) -> ChappieInputMessage {
        ChappieInputMessage(role: .user, text: text, options: options)
    }
    /// An assistant message (history).
    public static func assistant(_ text: String) -> ChappieInputMessage { ChappieInputMessage(role: .assistant, text: text) }
}

/// An explicit request: the whole transcript to send (the harness is still prepended).
public struct ChappieResponseRequest: Sendable, Hashable, Codable {
    /// The transcript, oldest first; the last message is usually the user's.
    public var messages: [ChappieInputMessage]
    /// Model slug for this request; nil uses the client's model.
    public var model: String?
    /// Options for this request (fast mode).
    public var options: ChappieMessageOptions

    /// Creates a request.
    public init(messages: [ChappieInputMessage], model: String? = nil, options: ChappieMessageOptions = ChappieMessageOptions()) {
        self.messages = messages
        self.model = model
        self.options = options
    }
}
