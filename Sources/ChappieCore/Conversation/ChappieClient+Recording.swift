import Foundation

/// What a recorder of turns (the runtime's thread store) uses of a client: turns that end in
/// their record, and blocks that no turn or context change of the client runs beside.
extension ChappieClient {
    /// Runs one turn for `message` and returns its record, which ``context()`` reflects already.
    /// `emit` gets the turn's events as they happen (never `.completed`); `deliver`, when given,
    /// gets each pending approval request and returns once the app dealt with it, so the
    /// approval handler runs only after that. Throws only when the turn could not start
    /// (``ChappieClientError/reentrantTurn``, or `CancellationError` while it waited): how the
    /// turn itself failed is in the record.
    package nonisolated func recordedTurn(_ message: ChappieInputMessage, emit: @escaping @Sendable (ChappieStreamEvent) -> Void,
                                          deliver: (@Sendable (ChappieStreamEvent) async -> Void)?) async throws -> ConversationTurnRecord {
        try await engine.recordedTurn(.message(message), events: ConversationEngine.TurnEvents(emit: emit, deliver: deliver))
    }

    /// Runs `body` while no turn or context change of this client runs; the client's calls made
    /// in `body` run at once (they do not queue behind it). Throws what `body` throws,
    /// ``ChappieClientError/reentrantTurn`` from one of the client's own tool handlers, or, when
    /// `cancellable`, `CancellationError` when the caller is cancelled while it waits.
    package nonisolated func exclusively<Result: Sendable>(cancellable: Bool = true,
                                                           _ body: @Sendable () async throws -> Result) async throws -> Result {
        try await engine.exclusively(cancellable: cancellable, body)
    }

    /// ``context()`` and its revision, a number that changes with every change of the context.
    package nonisolated func revisionedContext() async -> (context: ChappieClientContext, revision: Int) {
        await engine.contextWithRevision()
    }

    /// ``resumeContext(_:)``, returning the revision of the adopted context too.
    package nonisolated func revisionedResume(_ context: ChappieClientContext) async -> (context: ChappieClientContext, revision: Int) {
        await engine.changeContext { state, now in
            state = context
            state.updatedAt = now
        }
    }

    /// ``compactContext(summary:keepingLast:)``, returning the revision of the new context too.
    package nonisolated func revisionedCompaction(summary: String, keepingLast: Int) async -> (context: ChappieClientContext, revision: Int) {
        await engine.compactContext(summary: summary, keepingLast: keepingLast)
    }

    /// ``compactContext()``, returning the revision of the new context too.
    package nonisolated func revisionedCompaction() async throws -> (context: ChappieClientContext, revision: Int) {
        try await engine.compactContext()
    }
}
