import Foundation

/// A detached, Codable snapshot of a client's conversation.
public struct ChappieClientContext: Sendable, Hashable, Codable {
    /// Identifies the client instance; survives ``ChappieClient/clearContext()``.
    public var sessionID: String
    /// Identifies the conversation; sent as the prompt cache key; new after a clear.
    public var threadID: String
    /// The model for later turns.
    public var model: String
    /// The conversation so far, oldest first (the harness is not included).
    public var messages: [ChappieInputMessage]
    /// A summary that replaces older messages; sent as a system message ahead of `messages`.
    public var compactedSummary: String?
    /// When this context started.
    public var createdAt: Date
    /// When it last changed.
    public var updatedAt: Date
    /// `messages.count`.
    public var messageCount: Int { messages.count }
    /// A local estimate of the tokens the context uses (characters ÷ 4, rounded up).
    public var estimatedTokens: Int {
        let characters = messages.reduce(compactedSummary?.count ?? 0) { $0 + $1.text.count }
        return (characters + 3) / 4
    }

    /// Creates a context.
    public init(sessionID: String, threadID: String, model: String, messages: [ChappieInputMessage],
                compactedSummary: String?, createdAt: Date, updatedAt: Date) {
        self.sessionID = sessionID
        self.threadID = threadID
        self.model = model
        self.messages = messages
        self.compactedSummary = compactedSummary
        self.createdAt = createdAt
        self.updatedAt = updatedAt
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
