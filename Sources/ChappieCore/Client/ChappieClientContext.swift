import Foundation

/// A detached, Codable snapshot of a client's conversation.
public struct ChappieClientContext: Sendable, Hashable, Codable {
    /// Identifies the client instance; survives ``ChappieClient/clearContext()``.
    public var sessionID: String
    /// Identifies the conversation; sent as the prompt cache key; new after a clear.
    public var threadID: String
    /// The model for later turns.
    public var model: String
    /// The whole conversation, oldest first: messages, tool calls and their outputs, reasoning
    /// items (the harness is not included).
    public var transcript: [ChappieTranscriptItem]
    /// The messages of the conversation, oldest first. Setting it replaces the transcript.
    public var messages: [ChappieInputMessage] {
        get { transcript.compactMap(\.message) }
        set { transcript = newValue.map(ChappieTranscriptItem.message) }
    }
    /// A summary that replaces older messages; sent as a system message ahead of `messages`.
    public var compactedSummary: String?
    /// When this context started.
    public var createdAt: Date
    /// When it last changed.
    public var updatedAt: Date
    /// `messages.count`.
    public var messageCount: Int { messages.count }
    /// A local estimate of the tokens the context uses: text at four characters a token
    /// (rounded up), and each image attachment at what its pixel size costs a tile-priced model
    /// at high detail (85 tokens plus 170 for each 512-pixel tile after the image is scaled to
    /// 2048 × 2048 and then to a shorter side of 768), or 765 tokens (a 1024 × 1024 image) when
    /// its size is unknown, as for an image URL.
    public var estimatedTokens: Int {
        let characters = transcript.reduce(compactedSummary?.count ?? 0) { total, item in
            switch item {
            case .message(let message): total + message.text.count
            case .functionCall(let call): total + call.name.count + call.arguments.count
            case .functionCallOutput(_, let output): total + output.count
            case .reasoning(let value): total + (value["summary"]?.jsonString.count ?? 0)
            case .compaction(let value): total + (value["encrypted_content"]?.stringValue?.count ?? 0) / 4
            }
        }
        let imageTokens = messages.reduce(0) { total, message in total + message.attachments.reduce(0) { $0 + $1.estimatedTokens } }
        return (characters + 3) / 4 + imageTokens
    }

    /// This context with every attachment's bytes left out (``ChappieAttachment/withoutData``):
    /// what a thread store keeps. Resumed, it sends a short note where each image was.
    public var withoutAttachmentData: ChappieClientContext {
        var copy = self
        copy.transcript = transcript.map(\.withoutAttachmentData)
        return copy
    }

    /// Creates a context.
    public init(sessionID: String, threadID: String, model: String, transcript: [ChappieTranscriptItem],
                compactedSummary: String?, createdAt: Date, updatedAt: Date) {
        self.sessionID = sessionID
        self.threadID = threadID
        self.model = model
        self.transcript = transcript
        self.compactedSummary = compactedSummary
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Creates a context from messages only.
    public init(sessionID: String, threadID: String, model: String, messages: [ChappieInputMessage],
                compactedSummary: String?, createdAt: Date, updatedAt: Date) {
        self.init(sessionID: sessionID, threadID: threadID, model: model, transcript: messages.map(ChappieTranscriptItem.message),
                  compactedSummary: compactedSummary, createdAt: createdAt, updatedAt: updatedAt)
    }

    private enum CodingKeys: String, CodingKey {
        case sessionID, threadID, model, transcript, messages, compactedSummary, createdAt, updatedAt
    }

    /// Decodes a context; a context saved with `messages` only is accepted.
    /// Throws `DecodingError` when required fields are missing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sessionID = try container.decode(String.self, forKey: .sessionID)
        threadID = try container.decode(String.self, forKey: .threadID)
        model = try container.decode(String.self, forKey: .model)
        if let transcript = try container.decodeIfPresent([ChappieTranscriptItem].self, forKey: .transcript) {
            self.transcript = transcript
        } else {
            transcript = try container.decode([ChappieInputMessage].self, forKey: .messages).map(ChappieTranscriptItem.message)
        }
        compactedSummary = try container.decodeIfPresent(String.self, forKey: .compactedSummary)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        updatedAt = try container.decode(Date.self, forKey: .updatedAt)
    }

    /// Encodes the context with its full transcript and, for readers, its messages.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sessionID, forKey: .sessionID)
        try container.encode(threadID, forKey: .threadID)
        try container.encode(model, forKey: .model)
        try container.encode(transcript, forKey: .transcript)
        try container.encodeIfPresent(compactedSummary, forKey: .compactedSummary)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
    }
}

/// How much of a context window the conversation uses, by the local estimate.
public struct ChappieContextSize: Sendable, Hashable, Codable {
    /// Estimated tokens in use.
    public var usedTokens: Int
    /// The window, in tokens.
    public var contextWindow: Int
    /// Tokens left (never negative).
    public var remainingTokens: Int { max(0, contextWindow - usedTokens) }
    /// Share of the window in use, 0–100 (can exceed 100 when over the window).
    public var usedPercent: Double { contextWindow > 0 ? Double(usedTokens) / Double(contextWindow) * 100 : 100 }

    /// Creates a size value.
    public init(usedTokens: Int, contextWindow: Int) {
        self.usedTokens = usedTokens
        self.contextWindow = contextWindow
    }
}
