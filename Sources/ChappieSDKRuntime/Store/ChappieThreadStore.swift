import ChappieSDK
import Foundation

/// Where threads are kept. Implementations: ``ChappieFileThreadStore`` (durable, the default for
/// apps) and ``ChappieInMemoryThreadStore`` (tests and short sessions).
///
/// Every implementation applies its ``ChappieThreadRedactor`` before anything is stored, bumps
/// ``ChappieThread/revision`` on every write, enforces its byte cap without touching what is
/// already stored, and keeps one thread's damage from affecting the others.
public protocol ChappieThreadStore: Sendable {
    /// Stores `thread` whole, replacing any stored thread with the same id, and returns what was
    /// stored (redacted, with the new revision). Throws ``ChappieThreadStoreError`` (for example
    /// ``ChappieThreadStoreError/byteCapExceeded(bytesNeeded:bytesUsed:byteCap:)``, in which case
    /// nothing changed).
    @discardableResult
    func save(_ thread: ChappieThread) async throws -> ChappieThread

    /// Reads, changes and stores the thread `id` as one step that no other writer (in this or
    /// another process) can interleave with, and returns what was stored. `body` runs
    /// synchronously while the store is locked; an error it throws leaves the thread unchanged
    /// and is rethrown. Throws ``ChappieThreadStoreError/threadNotFound(_:)`` when there is no
    /// such thread, or another ``ChappieThreadStoreError``.
    @discardableResult
    func update(id: UUID, _ body: @Sendable (inout ChappieThread) throws -> Void) async throws -> ChappieThread

    /// Appends one turn to the stored thread `id`, as one step no other writer can interleave
    /// with: `transcriptItems` (what the turn added to the client's transcript) join the
    /// transcript, `turn` the turn records; the thread's and the transcript's model become
    /// `model`, the transcript's update date `contextUpdatedAt` and the thread's `turn.endedAt`.
    /// Returns what was stored. A store can write this without reading or rewriting the rest of
    /// the thread (``ChappieFileThreadStore`` appends one journal record). Throws
    /// ``ChappieThreadStoreError/threadChangedElsewhere(_:)`` when the thread does not have
    /// `expectedTurnCount` turns (another writer added one), and other
    /// ``ChappieThreadStoreError``s; then nothing changed.
    @discardableResult
    func appendTurn(_ turn: ChappieThreadTurn, transcriptItems: [ChappieTranscriptItem], model: String, contextUpdatedAt: Date,
                    to id: UUID, expectedTurnCount: Int) async throws -> ChappieThread

    /// The stored thread `id`. Throws ``ChappieThreadStoreError/threadNotFound(_:)``,
    /// ``ChappieThreadStoreError/corruptThread(_:reason:)`` (the damaged file is set aside and
    /// reported in ``issues()``) or another ``ChappieThreadStoreError``.
    func thread(id: UUID) async throws -> ChappieThread

    /// Summaries of the stored threads, most recently updated first, read from an index rather
    /// than from every thread. Archived threads are included only when `includingArchived` is
    /// true. Throws ``ChappieThreadStoreError``.
    func threads(includingArchived: Bool) async throws -> [ChappieThreadSummary]

    /// Deletes the thread `id`; deleting a thread that does not exist does nothing. Throws
    /// ``ChappieThreadStoreError`` on I/O failure.
    func delete(id: UUID) async throws

    /// Bytes used against the byte cap. Throws ``ChappieThreadStoreError``.
    func usage() async throws -> ChappieThreadStoreUsage

    /// Problems found so far (damaged or foreign files, an index rebuilt), oldest first.
    func issues() async -> [ChappieThreadStoreIssue]

    /// The redactor the store applies before writing; ``ChappieRuntime`` also applies it to a
    /// new thread's title before cutting it short. Defaults to ``ChappieThreadRedactor/credentials``.
    var redactor: ChappieThreadRedactor { get }
}

extension ChappieThreadStore {
    /// ``ChappieThreadRedactor/credentials``, for stores that do not say otherwise.
    public var redactor: ChappieThreadRedactor { .credentials }

    /// Appends one turn through ``update(id:_:)`` (see the requirement for what it changes).
    /// Throws like the requirement.
    @discardableResult
    public func appendTurn(_ turn: ChappieThreadTurn, transcriptItems: [ChappieTranscriptItem], model: String, contextUpdatedAt: Date,
                           to id: UUID, expectedTurnCount: Int) async throws -> ChappieThread {
        try await update(id: id) { thread in
            guard thread.turns.count == expectedTurnCount else { throw ChappieThreadStoreError.threadChangedElsewhere(thread.id) }
            thread.addTurn(turn, transcriptItems: transcriptItems, model: model, contextUpdatedAt: contextUpdatedAt)
        }
    }

    /// Sets the thread's ``ChappieThread/archived`` flag (and ``ChappieThread/updatedAt`` to
    /// `date`). Throws ``ChappieThreadStoreError``.
    @discardableResult
    public func setArchived(_ archived: Bool, id: UUID, date: Date = Date()) async throws -> ChappieThread {
        try await update(id: id) { thread in
            guard thread.archived != archived else { return }
            thread.archived = archived
            thread.updatedAt = date
        }
    }
}
