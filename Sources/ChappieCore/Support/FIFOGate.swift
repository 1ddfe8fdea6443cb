import ChappieTransport

/// A first-in, first-out gate: one holder at a time, the others admitted in the order they
/// arrived. A waiter whose task is cancelled stops waiting at once (``enter()`` throws
/// `CancellationError`) without changing the order of the others; the holder hands the gate
/// straight to the next waiter on ``leave()``, so nobody can slip in between.
///
/// It is the package's one way to wait for a turn: a client's turns, a runtime's turns, a
/// credential owner's store writes and the in-process side of the advisory file lock all queue
/// here. Its state lives in ``LockedBox`` (a continuation is resumed outside the lock), so it
/// works from any isolation and ``leave()`` can run in a `defer`.
package final class FIFOGate: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var held = false
        /// Few at a time (callers of one client or one slot), so an array: a cancelled waiter
        /// leaves from the middle.
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private let state = LockedBox(State())

    /// An open gate.
    package init() {}

    /// Whether someone holds the gate.
    package var isHeld: Bool { state.withLock(\.held) }

    /// How many wait to enter (for tests).
    package var queuedCount: Int { state.withLock(\.waiters.count) }

    /// Takes the gate if nobody holds it; never waits.
    /// - Returns: true when the caller now holds it (and must call ``leave()``).
    package func tryEnter() -> Bool {
        state.withLock { state in
            guard !state.held else { return false }
            state.held = true
            return true
        }
    }

    /// Waits until the caller holds the gate, after everyone who arrived earlier.
    /// - Throws: `CancellationError` when the calling task is cancelled before its turn (it does
    ///   not hold the gate then). A task cancelled after it was admitted holds the gate and must
    ///   still call ``leave()``.
    package func enter() async throws {
        guard let id = arrive() else { return }
        try await withTaskCancellationHandler {
            try await queue(id, cancellable: true)
        } onCancel: {
            // Not queued yet (it will see the flag) or already admitted (it holds the gate): nothing to do.
            let continuation: CheckedContinuation<Void, any Error>? = state.withLock { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Waits until the caller holds the gate, whether or not its task is cancelled meanwhile: for
    /// the short, non-throwing context changes that run between turns.
    package func enterIgnoringCancellation() async {
        guard let id = arrive() else { return }
        try? await queue(id, cancellable: false)
    }

    /// Takes an open gate (nil), or returns the waiter id the caller queues under.
    private func arrive() -> UInt64? {
        state.withLock { state in
            guard state.held else {
                state.held = true
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
    }

    private func queue(_ id: UInt64, cancellable: Bool) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            // Checked under the lock: a task's cancelled flag is set before its handler runs,
            // so the handler either finds this waiter queued or ran before and left it to
            // this check. The gate may also have opened since the first look.
            let outcome: Result<Void, CancellationError>? = state.withLock { state in
                if cancellable, Task.isCancelled { return .failure(CancellationError()) }
                guard state.held else {
                    state.held = true
                    return .success(())
                }
                state.waiters.append(Waiter(id: id, continuation: continuation))
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// Hands the gate to the next waiter, or opens it when nobody waits. Call it once for each
    /// successful ``enter()`` or ``tryEnter()``.
    package func leave() {
        let next: Waiter? = state.withLock { state in
            guard !state.waiters.isEmpty else {
                state.held = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.continuation.resume()
    }
}
