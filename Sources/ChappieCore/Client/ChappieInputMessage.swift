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
    /// Web search for this turn: true turns it on (the turn throws
    /// ``ChappieInputError/webSearchUnsupported(model:)`` when the model's catalog entry does not
    /// support the search tool), false turns it off, nil follows ``ChappieConfiguration/webSearch``.
    public var webSearch: Bool?

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
    /// Images sent with a user message (``ChappieAttachment``), after its text.
    public var attachments: [ChappieAttachment]
    /// The sources an assistant reply cited (web search), with the spans of ``text`` they back.
    public var citations: [ChappieURLCitation]

    /// Creates a message.
    public init(role: Role, text: String, options: ChappieMessageOptions = ChappieMessageOptions(), isPartial: Bool = false,
                attachments: [ChappieAttachment] = [], citations: [ChappieURLCitation] = []) {
        self.role = role
        self.text = text
        self.options = options
        self.isPartial = isPartial
        self.attachments = attachments
        self.citations = citations
    }

    private enum CodingKeys: String, CodingKey { case role, text, options, isPartial, attachments, citations }

    /// Decodes a message; `isPartial`, `attachments` and `citations` may be absent (messages saved
    /// before they existed). Throws `DecodingError` when `role`, `text` or `options` are missing
    /// or malformed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        role = try container.decode(Role.self, forKey: .role)
        text = try container.decode(String.self, forKey: .text)
        options = try container.decode(ChappieMessageOptions.self, forKey: .options)
        isPartial = try container.decodeIfPresent(Bool.self, forKey: .isPartial) ?? false
        attachments = try container.decodeIfPresent([ChappieAttachment].self, forKey: .attachments) ?? []
        citations = try container.decodeIfPresent([ChappieURLCitation].self, forKey: .citations) ?? []
    }

    /// Encodes the message; `isPartial`, `attachments` and `citations` only when set, so plain
    /// messages encode as before.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(role, forKey: .role)
        try container.encode(text, forKey: .text)
        try container.encode(options, forKey: .options)
        if isPartial { try container.encode(true, forKey: .isPartial) }
        if !attachments.isEmpty { try container.encode(attachments, forKey: .attachments) }
        if !citations.isEmpty { try container.encode(citations, forKey: .citations) }
    }

    /// This message with its attachments' bytes left out (``ChappieAttachment/withoutData``):
    /// what a thread store keeps.
    public var withoutAttachmentData: ChappieInputMessage {
        guard attachments.contains(where: { $0.data != nil }) else { return self }
        var copy = self
        copy.attachments = attachments.map(\.withoutData)
        return copy
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
    /// A user message with images (``ChappieAttachment``) and options.
    public static func user(_ text: String, attachments: [ChappieAttachment],
                            options: ChappieMessageOptions = ChappieMessageOptions()) -> ChappieInputMessage {
        ChappieInputMessage(role: .user, text: text, options: options, attachments: attachments)
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
