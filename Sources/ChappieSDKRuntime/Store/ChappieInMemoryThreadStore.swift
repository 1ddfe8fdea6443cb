import Foundation

/// Keeps threads in memory only: for unit and UI tests and short sessions. Behaves like
/// ``ChappieFileThreadStore`` (redaction before storing, revisions, the byte cap measured as the
/// size of each thread's JSON) but nothing survives the process.
public actor ChappieInMemoryThreadStore: ChappieThreadStore {
    /// The most bytes all threads may use (their JSON size); nil for no cap.
    public nonisolated let byteCap: Int?
    /// Applied to every thread before it is stored.
    public nonisolated let redactor: ChappieThreadRedactor

    private var stored: [UUID: (thread: ChappieThread, bytes: Int)] = [:]

    /// Creates an empty store.
    /// - Parameters:
    ///   - byteCap: the cap in bytes (default none).
    ///   - redactor: applied before anything is stored (default ``ChappieThreadRedactor/credentials``).
    public init(byteCap: Int? = nil, redactor: ChappieThreadRedactor = .credentials) {
        self.byteCap = byteCap
        self.redactor = redactor
    }

    /// Stores `thread` (redacted), replacing any thread with its id; returns what was stored.
    /// Throws ``ChappieThreadStoreError/byteCapExceeded(bytesNeeded:bytesUsed:byteCap:)`` (then
    /// nothing changed).
    @discardableResult
    public func save(_ thread: ChappieThread) async throws -> ChappieThread {
        var next = try ThreadCoding.redacted(thread, with: redactor)
        next.revision = max(stored[thread.id]?.thread.revision ?? 0, thread.revision) + 1
        try put(next)
        return next
    }

    /// Changes the thread `id` with `body` as one step and returns what was stored. Throws
    /// ``ChappieThreadStoreError/threadNotFound(_:)``, the byte-cap error, or what `body` throws
    /// (then nothing changed).
    @discardableResult
    public func update(id: UUID, _ body: @Sendable (inout ChappieThread) throws -> Void) async throws -> ChappieThread {
        guard var thread = stored[id]?.thread else { throw ChappieThreadStoreError.threadNotFound(id) }
        let revision = thread.revision
        try body(&thread)
        thread.id = id
        var next = try ThreadCoding.redacted(thread, with: redactor)
        next.revision = revision + 1
        try put(next)
        return next
    }

    /// The stored thread `id`. Throws ``ChappieThreadStoreError/threadNotFound(_:)``.
    public func thread(id: UUID) async throws -> ChappieThread {
        guard let thread = stored[id]?.thread else { throw ChappieThreadStoreError.threadNotFound(id) }
        return thread
    }

    /// Summaries, most recent first; archived ones only when `includingArchived`.
    public func threads(includingArchived: Bool) async throws -> [ChappieThreadSummary] {
        stored.values.map { ChappieThreadSummary($0.thread, byteCount: $0.bytes) }
            .filter { includingArchived || !$0.archived }.sortedByRecency()
    }

    /// Forgets the thread `id`, if stored.
    public func delete(id: UUID) async throws {
        stored[id] = nil
    }

    /// Bytes used (JSON sizes) against the cap.
    public func usage() async throws -> ChappieThreadStoreUsage {
        ChappieThreadStoreUsage(bytesUsed: bytesUsed, byteCap: byteCap, threadCount: stored.count)
    }

    /// Always empty: memory cannot be damaged the way files can.
    public func issues() async -> [ChappieThreadStoreIssue] { [] }

    private var bytesUsed: Int { stored.values.reduce(0) { $0 + $1.bytes } }

    private func put(_ thread: ChappieThread) throws {
        let bytes = try ThreadCoding.encode(thread).count
        let replaced = stored[thread.id]?.bytes ?? 0
        let needed = bytesUsed - replaced + bytes
        if let byteCap, needed > byteCap, bytes > replaced {
            throw ChappieThreadStoreError.byteCapExceeded(bytesNeeded: needed, bytesUsed: bytesUsed, byteCap: byteCap)
        }
        stored[thread.id] = (thread, bytes)
    }
}
