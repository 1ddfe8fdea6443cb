import Dispatch

/// Runs async work from a plain socket thread and waits for its result.
///
/// The socket threads are ordinary OS threads (never the cooperative pool), so blocking one of
/// them on a semaphore cannot starve Swift concurrency. The other direction matters as much: the
/// work itself prefers ``EmulatorExecutor`` (its own thread), so an app or test that keeps the
/// cooperative pool busy, or blocks it, does not delay the emulator's answers.
enum BlockingBridge {
    /// Starts `operation` in a task and blocks the calling (non-async) thread until it returns.
    static func run<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
        let slot = LockedBox<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let work: @Sendable () async -> Void = {
            let result = await operation()
            slot.withLock { $0 = result }
            done.signal()
        }
        if #available(macOS 15, iOS 18, *) {
            Task(executorPreference: EmulatorExecutor.shared) { await work() }
        } else {
            Task { await work() }
        }
        done.wait()
        return slot.withLock { $0! }
    }
}

/// The task executor the emulator's request handling runs on: one serial dispatch queue, which
/// libdispatch backs with its own overcommitting thread rather than a cooperative-pool thread.
///
/// Default actors (every emulator store) honour a task's executor preference (SE-0417), so a whole
/// request runs here. The work is short and never blocks (slow-drip pauses happen on the socket
/// threads), so one queue serves every emulator in the process.
@available(macOS 15, iOS 18, *)
final class EmulatorExecutor: TaskExecutor {
    /// The process-wide executor.
    static let shared = EmulatorExecutor()

    private let queue = DispatchQueue(label: "ChappieEmulator.executor")

    /// Runs `job` on the emulator's queue.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
