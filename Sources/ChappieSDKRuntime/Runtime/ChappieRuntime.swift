import ChappieSDK
import Foundation

/// A client wrapped with a thread store: every turn is recorded, and ``send(_:)-(String)`` and
/// ``stream(_:)-(String)`` persist the whole turn before they return. Create one with
/// ``ChappieSDK/ChappieClient/runtime(store:)``.
///
/// The runtime has a current thread: none at first, created by the first turn, replaced by
/// ``resume(threadID:)`` or ``startNewThread()``. Each turn stores the client's context (the
/// transcript) and a ``ChappieThreadTurn`` record with the output, tool calls, usage and, for a
/// turn that did not complete, the error.
///
/// The runtime and its client share one queue: the runtime's turns and thread changes run one at
/// a time in call order with the client's own turns and context changes, and a turn is stored
/// before anything queued behind it runs. Called from a tool handler of the client's running
/// turn, a turn or thread change (``send(_:)-(String)``, ``stream(_:)-(String)``,
/// ``resume(threadID:)``, ``delete(threadID:)``, ``compact()``) throws
/// ``/ChappieSDK/ChappieClientError/reentrantTurn`` at once instead of waiting for the turn
/// that waits for it.
///
/// Drive the conversation through the runtime only: turns sent on the client directly are not
/// recorded (their messages appear in the thread with the next runtime turn). If the current
/// thread gained a turn elsewhere (another runtime or process), the next turn's reply is
/// returned by the client but not stored, and the call throws
/// ``ChappieThreadStoreError/threadChangedElsewhere(_:)``; resume the thread to continue it.
public actor ChappieRuntime {
    /// The client that runs the turns.
    public nonisolated let client: ChappieClient
    /// Where threads are kept.
    public nonisolated let store: any ChappieThreadStore

    private let now: @Sendable () -> Date
    private var current: CurrentThread?

    /// Creates a runtime; ``ChappieSDK/ChappieClient/runtime(store:)`` is the usual way.
    /// - Parameters:
    ///   - client: runs the turns.
    ///   - store: keeps the threads.
    ///   - now: the wall clock for the dates recorded in threads (default: the system clock).
    public init(client: ChappieClient, store: any ChappieThreadStore, now: @escaping @Sendable () -> Date = { Date() }) {
        self.client = client
        self.store = store
        self.now = now
    }

    /// The current thread's id; nil before the first turn or after ``startNewThread()``.
    public var currentThreadID: UUID? { current?.id }

    // MARK: Turns

    /// Sends `text` as a user message in the current thread and returns the reply text, after
    /// the turn is stored. Throws ``/ChappieSDK/ChappieClientError`` (the failed turn is stored first),
    /// ``ChappieThreadStoreError``, or `CancellationError`.
    public func send(_ text: String) async throws -> String {
        try await send(.user(text))
    }

    /// Sends `message` in the current thread and returns the reply text, after the turn is
    /// stored. Throws like ``send(_:)-(String)``.
    public func send(_ message: ChappieInputMessage) async throws -> String {
        try await runTurn(message, emit: { _ in }).outputText
    }

    /// Streams the reply to `text` as a user message; see ``stream(_:)-(ChappieInputMessage)``.
    public nonisolated func stream(_ text: String) -> AsyncThrowingStream<ChappieRuntimeTurnEvent, any Error> {
        stream(.user(text))
    }

    /// Streams the turn for `message` as normalized events (see ``ChappieRuntimeTurnEvent`` for
    /// their order). ``ChappieRuntimeTurnEvent/turnCompleted(_:)`` or
    /// ``ChappieRuntimeTurnEvent/turnFailed(_:)`` comes only after the turn is stored; after a
    /// failure the stream throws the turn's error. Ending iteration early cancels the turn, which
    /// is then stored as cancelled.
    ///
    /// A pending ``ChappieRuntimeTurnEvent/approvalRequested(_:)`` holds the turn until your loop
    /// has dealt with it (asked for the next event): the client's approval handler is asked only
    /// then. Once the call is decided, ``ChappieRuntimeTurnEvent/approvalRequested(_:)`` comes
    /// again with the decision, before the call's ``ChappieRuntimeTurnEvent/toolCallCompleted(_:)``.
    public nonisolated func stream(_ message: ChappieInputMessage) -> AsyncThrowingStream<ChappieRuntimeTurnEvent, any Error> {
        EventChannel.stream { channel in
            _ = try await self.runTurn(message, emit: { channel.send($0) }, deliver: { await channel.sendAndWait($0) })
        }
    }

    /// Runs one turn through the client, stores it (completed, failed or cancelled) and returns
    /// the stored record; rethrows the turn's error after storing it. The turn and its storing
    /// run while no other turn or context change of the client runs, so turns are stored in the
    /// order they ran. `deliver`, when given, sends a pending approval request and returns once
    /// the consumer dealt with it, so the client's approval handler runs only after that.
    private func runTurn(_ message: ChappieInputMessage, emit: @escaping @Sendable (ChappieRuntimeTurnEvent) -> Void,
                         deliver: (@Sendable (ChappieRuntimeTurnEvent) async -> Void)? = nil) async throws -> ChappieThreadTurn {
        try await client.exclusively { try await self.recordTurn(message, emit: emit, deliver: deliver) }
    }

    /// ``runTurn(_:emit:deliver:)`` once the client is held.
    private func recordTurn(_ message: ChappieInputMessage, emit: @escaping @Sendable (ChappieRuntimeTurnEvent) -> Void,
                            deliver: (@Sendable (ChappieRuntimeTurnEvent) async -> Void)?) async throws -> ChappieThreadTurn {
        let turnID = UUID()
        // A new thread takes the conversation's own id (its prompt cache key), so the thread and
        // its context carry one id.
        let threadID: UUID
        if let current { threadID = current.id } else { threadID = UUID(uuidString: await client.context().threadID) ?? UUID() }
        let startedAt = now()
        emit(.turnStarted(ChappieRuntimeTurnStart(threadID: threadID, turnID: turnID, input: [message])))
        let mapper = RuntimeEventMapper()
        let mappedEmit: @Sendable (ChappieStreamEvent) -> Void = { event in
            for runtimeEvent in mapper.events(for: event) { emit(runtimeEvent) }
        }
        var mappedDeliver: (@Sendable (ChappieStreamEvent) async -> Void)?
        if let deliver {
            mappedDeliver = { event in
                for runtimeEvent in mapper.events(for: event) {
                    if case .approvalRequested(let approval) = runtimeEvent, approval.decision == .pending {
                        await deliver(runtimeEvent)
                    } else {
                        emit(runtimeEvent)
                    }
                }
            }
        }
        let record = try await client.recordedTurn(message, emit: mappedEmit, deliver: mappedDeliver)
        if let usage = record.response?.usage, record.failure == nil { emit(.usage(usage)) }
        let failure = record.failure.map(ChappieThreadTurnFailure.init)
        let turn = ChappieThreadTurn(record, id: turnID, startedAt: startedAt, endedAt: now(), failure: failure)
        let stored = try await persist(turn, of: record, threadID: threadID, title: ChappieThread.title(from: message.text, redactor: store.redactor))
        let storedTurn = stored.turns.last ?? turn
        if let turnError = record.failure {
            if failure?.kind != .cancelled { emit(.turnFailed(storedTurn)) }
            throw turnError
        }
        emit(.turnCompleted(storedTurn))
        return storedTurn
    }

    /// Stores `turn` and the client's context after it (`record`): appended to the current
    /// thread, or as a new thread `threadID` when there is none. When the turn only appended to
    /// the context this runtime last stored, only the new items go to the store (a journal
    /// store then writes what the turn added, not the whole thread). Throws
    /// ``ChappieThreadStoreError``.
    private func persist(_ turn: ChappieThreadTurn, of record: ConversationTurnRecord, threadID: UUID, title: String) async throws
        -> ChappieThread {
        let context = record.context
        let stored: ChappieThread
        if let current, current.revision == record.baseRevision, let added = record.appendedItems {
            stored = try await store.appendTurn(turn, transcriptItems: added, model: context.model, contextUpdatedAt: context.updatedAt,
                                                to: current.id, expectedTurnCount: current.turnCount)
        } else if let current {
            let expected = current.turnCount
            stored = try await store.update(id: current.id) { thread in
                guard thread.turns.count == expected else { throw ChappieThreadStoreError.threadChangedElsewhere(thread.id) }
                thread.context = context
                thread.model = context.model
                thread.turns.append(turn)
                thread.updatedAt = turn.endedAt
            }
        } else {
            var thread = ChappieThread(id: threadID, title: title, context: context, createdAt: turn.startedAt, turns: [turn])
            thread.updatedAt = turn.endedAt
            stored = try await store.save(thread)
        }
        current = CurrentThread(id: stored.id, turnCount: stored.turns.count, revision: record.revision)
        return stored
    }

    /// The thread later turns are recorded in.
    private struct CurrentThread {
        var id: UUID
        /// Turns the thread had when this runtime last stored or read it.
        var turnCount: Int
        /// The revision of the client's context that the thread holds.
        var revision: Int
    }

    /// Returns once every turn and thread change started before the call has finished — a turn
    /// whose stream consumer stopped early is stored as cancelled by then. Use it before exiting
    /// or reporting after cancelling a turn. Called from a tool handler of the client's own turn,
    /// it returns at once (that turn cannot end before the handler does).
    public func waitUntilIdle() async {
        _ = try? await client.exclusively(cancellable: false) {}
    }

    // MARK: Threads

    /// Continues the stored thread `threadID`: the client adopts its context, and later turns are
    /// recorded in it. Returns the thread. Throws ``ChappieThreadStoreError`` (for example
    /// ``ChappieThreadStoreError/threadNotFound(_:)``), or `CancellationError` when the caller is
    /// cancelled while a turn runs.
    @discardableResult
    public func resume(threadID: UUID) async throws -> ChappieThread {
        try await client.exclusively {
            let thread = try await self.store.thread(id: threadID)
            let revision = await self.client.revisionedResume(thread.context).revision
            await self.setCurrent(CurrentThread(id: thread.id, turnCount: thread.turns.count, revision: revision))
            return thread
        }
    }

    private func setCurrent(_ thread: CurrentThread?) {
        current = thread
    }

    /// Starts a new conversation: the client's context is cleared (new prompt cache key) and the
    /// next turn creates a new thread. Stored threads are unchanged. It waits for a running turn
    /// to be stored first; called from a tool handler of the client's own turn, it does nothing
    /// (it cannot wait for the turn that waits for it).
    public func startNewThread() async {
        _ = try? await client.exclusively(cancellable: false) {
            await self.client.clearContext()
            await self.setCurrent(nil)
        }
    }

    /// Non-archived threads, most recently updated first, from the store's index. Throws
    /// ``ChappieThreadStoreError``.
    public func listThreads() async throws -> [ChappieThreadSummary] {
        try await store.threads(includingArchived: false)
    }

    /// All threads, archived ones included when `includingArchived`, most recent first. Throws
    /// ``ChappieThreadStoreError``.
    public func listThreads(includingArchived: Bool) async throws -> [ChappieThreadSummary] {
        try await store.threads(includingArchived: includingArchived)
    }

    /// The stored thread `id`. Throws ``ChappieThreadStoreError``.
    public func thread(id: UUID) async throws -> ChappieThread {
        try await store.thread(id: id)
    }

    /// Archives the thread: kept, but left out of ``listThreads()``. Returns the stored thread.
    /// Throws ``ChappieThreadStoreError``.
    @discardableResult
    public func archive(threadID: UUID) async throws -> ChappieThread {
        try await store.setArchived(true, id: threadID, date: now())
    }

    /// Brings an archived thread back into ``listThreads()``. Returns the stored thread. Throws
    /// ``ChappieThreadStoreError``.
    @discardableResult
    public func unarchive(threadID: UUID) async throws -> ChappieThread {
        try await store.setArchived(false, id: threadID, date: now())
    }

    /// Gives the thread a new title. Returns the stored thread. Throws ``ChappieThreadStoreError``.
    @discardableResult
    public func rename(threadID: UUID, title: String) async throws -> ChappieThread {
        let date = now()
        return try await store.update(id: threadID) { thread in
            thread.title = title
            thread.updatedAt = date
        }
    }

    /// Deletes the thread. Deleting the current thread also starts a new conversation (as
    /// ``startNewThread()``). Throws ``ChappieThreadStoreError``, or `CancellationError` when the
    /// caller is cancelled while a turn runs.
    public func delete(threadID: UUID) async throws {
        try await client.exclusively {
            try await self.store.delete(id: threadID)
            if await self.currentThreadID == threadID {
                await self.client.clearContext()
                await self.setCurrent(nil)
            }
        }
    }

    /// Compacts the current conversation: `summary` replaces all but the last `keepingLast`
    /// messages (see ``/ChappieSDK/ChappieClient/compactContext(summary:keepingLast:)``), and the
    /// compaction is stored in the thread, replacing any earlier one (the turns keep the whole
    /// history). Returns the stored thread. Throws
    /// ``ChappieRuntimeError/noCurrentThread`` or ``ChappieThreadStoreError``.
    @discardableResult
    public func compact(summary: String, keepingLast: Int = 0) async throws -> ChappieThread {
        try await storeCompaction { client in
            let (context, revision) = await client.revisionedCompaction(summary: summary, keepingLast: keepingLast)
            return (context, revision, summary)
        }
    }

    /// Compacts the current conversation the way ``/ChappieSDK/ChappieClient/compactContext()``
    /// does (the backend's compaction endpoint, or a local summary when it is unavailable) and
    /// stores the compaction in the thread. Returns the stored thread. Throws
    /// ``ChappieRuntimeError/noCurrentThread``, ``/ChappieSDK/ChappieClientError`` or
    /// ``ChappieThreadStoreError``.
    @discardableResult
    public func compact() async throws -> ChappieThread {
        try await storeCompaction { client in
            let (context, revision) = try await client.revisionedCompaction()
            return (context, revision, context.compactedSummary ?? "")
        }
    }

    /// Runs `compacting` (which returns the new context, its revision and the summary) while no
    /// turn runs, and stores the compaction in the current thread.
    private func storeCompaction(
        _ compacting: @escaping @Sendable (ChappieClient) async throws -> (ChappieClientContext, Int, String)
    ) async throws -> ChappieThread {
        try await client.exclusively { try await self.storeCompactionHoldingClient(compacting) }
    }

    private func storeCompactionHoldingClient(
        _ compacting: @Sendable (ChappieClient) async throws -> (ChappieClientContext, Int, String)
    ) async throws -> ChappieThread {
        guard let current else { throw ChappieRuntimeError.noCurrentThread }
        let before = await client.context().messageCount
        let (context, revision, summary) = try await compacting(client)
        let record = ChappieThreadCompaction(summary: summary, createdAt: now(), messagesBefore: before,
                                             messagesAfter: context.messageCount)
        let expected = current.turnCount
        let stored = try await store.update(id: current.id) { thread in
            guard thread.turns.count == expected else { throw ChappieThreadStoreError.threadChangedElsewhere(thread.id) }
            thread.context = context
            // Only the newest compaction is kept: it stands for everything before it, so the
            // thread grows with its turns, not with the summaries of summaries.
            thread.compactions = [record]
            thread.updatedAt = record.createdAt
        }
        self.current = CurrentThread(id: stored.id, turnCount: stored.turns.count, revision: revision)
        return stored
    }

    /// Bytes the store uses against its cap. Throws ``ChappieThreadStoreError``.
    public func usage() async throws -> ChappieThreadStoreUsage {
        try await store.usage()
    }

    /// Problems the store found (damaged or foreign files, a rebuilt index).
    public func storeIssues() async -> [ChappieThreadStoreIssue] {
        await store.issues()
    }
}
