import ChappieSDK
import Foundation

/// What a thread list shows about a thread, read from the store's index without loading the
/// thread itself.
public struct ChappieThreadSummary: Sendable, Hashable, Codable, Identifiable {
    /// The thread's identifier.
    public var id: UUID
    /// The display title.
    public var title: String
    /// The model slug.
    public var model: String
    /// When the thread was created.
    public var createdAt: Date
    /// When the thread last changed.
    public var updatedAt: Date
    /// Whether the thread is archived.
    public var archived: Bool
    /// Messages in the transcript.
    public var messageCount: Int
    /// Turns recorded.
    public var turnCount: Int
    /// Size of the stored thread, in bytes (0 for stores that keep no files).
    public var byteCount: Int

    /// Creates a summary.
    public init(id: UUID, title: String, model: String, createdAt: Date, updatedAt: Date, archived: Bool,
                messageCount: Int, turnCount: Int, byteCount: Int) {
        self.id = id
        self.title = title
        self.model = model
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.archived = archived
        self.messageCount = messageCount
        self.turnCount = turnCount
        self.byteCount = byteCount
    }

    /// The summary of `thread`, stored in `byteCount` bytes.
    public init(_ thread: ChappieThread, byteCount: Int) {
        self.init(id: thread.id, title: thread.title, model: thread.model, createdAt: thread.createdAt,
                  updatedAt: thread.updatedAt, archived: thread.archived, messageCount: thread.context.messageCount,
                  turnCount: thread.turns.count, byteCount: byteCount)
    }
}

extension [ChappieThreadSummary] {
    /// Most recently updated first; ties broken by identifier so the order is stable.
    func sortedByRecency() -> [ChappieThreadSummary] {
        sorted { $0.updatedAt != $1.updatedAt ? $0.updatedAt > $1.updatedAt : $0.id.uuidString < $1.id.uuidString }
    }
}
