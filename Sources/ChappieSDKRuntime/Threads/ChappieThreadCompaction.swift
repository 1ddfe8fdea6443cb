import Foundation

/// One compaction of a thread's transcript: the summary that replaced older messages.
public struct ChappieThreadCompaction: Sendable, Hashable, Codable {
    /// The summary text (sent ahead of later messages as a system message).
    public var summary: String
    /// When the compaction happened.
    public var createdAt: Date
    /// Messages in the transcript before the compaction.
    public var messagesBefore: Int
    /// Messages kept after the compaction.
    public var messagesAfter: Int

    /// Creates a compaction record.
    public init(summary: String, createdAt: Date, messagesBefore: Int, messagesAfter: Int) {
        self.summary = summary
        self.createdAt = createdAt
        self.messagesBefore = messagesBefore
        self.messagesAfter = messagesAfter
    }
}
