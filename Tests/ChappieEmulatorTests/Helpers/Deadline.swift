import Foundation

/// Resumes a continuation once, from whichever of two tasks gets there first.
private final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    // Unchecked: `continuation` is only touched under `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Never>?

    init(_ continuation: CheckedContinuation<T, Never>) { self.continuation = continuation }

    func resume(_ value: T) {
        lock.lock()
        let pending = continuation
        continuation = nil
        lock.unlock()
        pending?.resume(returning: value)
    }
}

/// Awaits `body`, but gives up with nil after `limit`: a bounded wait for an event, never a
/// sleep that hopes the event has happened. `body` keeps running after a timeout (the emulator
/// ends its waits on shutdown).
func within<T: Sendable>(_ limit: Duration = .seconds(10), _ body: @escaping @Sendable () async -> T?) async -> T? {
    await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
        let once = ResumeOnce(continuation)
        Task { once.resume(await body()) }
        Task {
            try? await Task.sleep(for: limit)
            once.resume(nil)
        }
    }
}
