import Foundation

/// Runs a blocking system call (`flock`, a pipe read, `waitpid`) on a thread of its own and
/// suspends the caller until it returns.
///
/// Never block a cooperative-pool thread, and never a Dispatch worker either: on Linux the
/// Swift concurrency executor is built on Dispatch's global queues, so a handful of workers
/// stuck in `flock` can leave no thread to run the task that would let go of the lock. A
/// dedicated `Thread` costs a thread start (tens of microseconds) and cannot starve anything.
package enum BlockingCall {
    /// Runs `work` on a new thread and returns its result. `work` is not cancelled with the
    /// calling task: keep it to calls that end on their own.
    package static func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: work()) }
            thread.name = "Chappie.blocking-call"
            thread.start()
        }
    }
}
