import Dispatch

/// Runs async work from a plain socket thread and waits for its result.
///
/// The socket threads are ordinary OS threads (never the cooperative pool), so blocking one of
/// them on a semaphore while the async work runs on the pool cannot starve Swift concurrency.
enum BlockingBridge {
    /// Starts `operation` in a task and blocks the calling (non-async) thread until it returns.
    static func run<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
        let slot = LockedBox<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result = await operation()
            slot.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return slot.withLock { $0! }
    }
}
