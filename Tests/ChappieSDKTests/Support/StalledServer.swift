import Foundation
@testable import ChappieCore

/// A server that never answers, and request deadlines that fire on cue instead of after real
/// time: bind ``deadline(_:)`` with `HTTPDeadline.sleep.withValue(stalled.deadline)` around the
/// code under test, and call ``neverAnswer()`` in a scripted transport's handler for the request
/// that should stall. While a request stalls, every deadline that is waiting (or starts waiting)
/// fires; the deadline of a request that was answered is cancelled with its request and never
/// fires. A request with no deadline stalls until its task is cancelled.
final class StalledServer: Sendable {
    private struct State {
        var stalledRequests: [UUID: CheckedContinuation<Void, Never>] = [:]
        var waitingDeadlines: [UUID: (duration: Duration, continuation: CheckedContinuation<Void, any Error>)] = [:]
        /// Waits cancelled before they were registered.
        var cancelled: Set<UUID> = []
        var fired: [Duration] = []
    }

    private let state = LockedBox(State())

    /// The durations of the deadlines that fired, in order.
    var firedDeadlines: [Duration] { state.withLock { $0.fired } }

    /// A deadline's wait: returns when a request stalls, throws `CancellationError` when its task
    /// is cancelled first (its request was answered).
    func deadline(_ duration: Duration) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let fires: Bool? = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return nil }
                    if !state.stalledRequests.isEmpty {
                        state.fired.append(duration)
                        return true
                    }
                    state.waitingDeadlines[id] = (duration, continuation)
                    return false
                }
                switch fires {
                case nil: continuation.resume(throwing: CancellationError())
                case true?: continuation.resume()
                case false?: break
                }
            }
        } onCancel: {
            let waiting = state.withLock { state in
                guard let entry = state.waitingDeadlines.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return CheckedContinuation<Void, any Error>?.none
                }
                return entry.continuation
            }
            waiting?.resume(throwing: CancellationError())
        }
    }

    /// Never answers: fires the waiting deadlines and returns only when the calling task is
    /// cancelled (its deadline, or its caller).
    func neverAnswer() async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let due: [CheckedContinuation<Void, any Error>]? = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return nil }
                    state.stalledRequests[id] = continuation
                    let due = state.waitingDeadlines.values
                    state.fired += due.map(\.duration)
                    state.waitingDeadlines = [:]
                    return due.map(\.continuation)
                }
                guard let due else { return continuation.resume() }
                for deadline in due { deadline.resume() }
            }
        } onCancel: {
            let stalled = state.withLock { state in
                guard let continuation = state.stalledRequests.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return CheckedContinuation<Void, Never>?.none
                }
                return continuation
            }
            stalled?.resume()
        }
    }
}
