import Foundation

/// What the reader threads and the exit handler of one ``TestProcess`` have seen, and the tasks
/// waiting for a condition on it. Every change wakes the waiters whose condition now holds; a
/// cancelled waiter leaves at once with `CancellationError`.
final class ProcessRecord: @unchecked Sendable {
    // Sound: `state` and `waiters` are only touched while holding `lock`.

    /// A captured stream.
    enum Stream: Sendable { case stdout, stderr }

    /// A snapshot of what was seen.
    struct State: Sendable {
        var stdout = Data()
        var stderr = Data()
        /// Where the next unread line of standard output starts in `stdout`.
        var lineStart = 0
        var stdoutEnded = true
        var stderrEnded = true
        var exit: (status: Int32, killedBySignal: Bool)?
        var timedOut = false

        mutating func append(_ chunk: Data, to stream: Stream) {
            switch stream {
            case .stdout: stdout.append(chunk)
            case .stderr: stderr.append(chunk)
            }
        }

        mutating func end(_ stream: Stream) {
            switch stream {
            case .stdout: stdoutEnded = true
            case .stderr: stderrEnded = true
            }
        }

        /// Exited, and every captured stream read to its end.
        var finished: Bool { exit != nil && stdoutEnded && stderrEnded }
    }

    private struct Waiter {
        var ready: @Sendable (State) -> Bool
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSCondition()  // a lock whose `broadcast()` wakes ``block(until:)``
    private var state: State
    private var waiters: [UUID: Waiter] = [:]

    init(capturesStdout: Bool, capturesStderr: Bool) {
        state = State(stdoutEnded: !capturesStdout, stderrEnded: !capturesStderr)
    }

    /// The state now.
    var current: State {
        lock.lock()
        defer { lock.unlock() }
        return state
    }

    /// Changes the state and wakes the waiters it satisfies.
    func update(_ change: (inout State) -> Void) {
        lock.lock()
        change(&state)
        lock.broadcast()
        let now = state
        var ready: [CheckedContinuation<Void, any Error>] = []
        for (id, waiter) in waiters where waiter.ready(now) {
            ready.append(waiter.continuation)
            waiters[id] = nil
        }
        lock.unlock()
        for continuation in ready { continuation.resume() }
    }

    /// Changes the state under the lock and returns what `change` returns (no waiter is woken:
    /// for taking what was seen, such as the next line).
    func take<T>(_ change: (inout State) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return change(&state)
    }

    /// Blocks the calling thread until `ready` holds for the state (synchronous callers only).
    func block(until ready: (State) -> Bool) {
        lock.lock()
        while !ready(state) { lock.wait() }
        lock.unlock()
    }

    /// Suspends until `ready` holds for the state. Throws `CancellationError` when the calling
    /// task is cancelled first.
    func wait(until ready: @escaping @Sendable (State) -> Bool) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                lock.lock()
                if Task.isCancelled {
                    lock.unlock()
                    continuation.resume(throwing: CancellationError())
                } else if ready(state) {
                    lock.unlock()
                    continuation.resume()
                } else {
                    waiters[id] = Waiter(ready: ready, continuation: continuation)
                    lock.unlock()
                }
            }
        } onCancel: {
            lock.lock()
            let waiter = waiters.removeValue(forKey: id)
            lock.unlock()
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}
