import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock (`flock(2)`) on a lock file, shared by every process that uses the
/// same folder, taken without ever blocking a cooperative-pool or Dispatch thread.
///
/// Callers in one process first queue on an in-process async lock keyed by the file's path, so
/// at most one of them waits in the kernel at a time; that one tries a non-blocking `flock`
/// first and only waits on a dedicated thread (``BlockingCall``) when another process holds it.
/// The kernel drops the lock if the process dies, so a crashed holder never wedges the folder.
package enum AdvisoryFileLock {
    /// Why the lock could not be taken.
    package enum Failure: Error, Sendable, Equatable {
        /// `open(2)` refused the lock file; `symbolicLink` when it is a link (`ELOOP`).
        case open(reason: String, symbolicLink: Bool)
        /// `flock(2)` failed with something other than `EINTR`.
        case lock(reason: String)
    }

    /// Runs `body` holding the lock on the file at `path` (created 0600 if missing, links refused).
    /// The lock is released when `body` returns or throws. Throws ``Failure`` or what `body` throws.
    package static func withLock<Result>(
        path: String,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async throws -> Result {
        await InProcessLocks.shared.acquire(path)
        do {
            let result = try await holdingFileLock(path: path, body)
            await InProcessLocks.shared.release(path)
            return result
        } catch {
            await InProcessLocks.shared.release(path)
            throw error
        }
    }

    private static func holdingFileLock<Result>(
        path: String,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async throws -> Result {
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            throw Failure.open(reason: String(cString: strerror(code)), symbolicLink: code == ELOOP)
        }
        defer { close(descriptor) }
        var failure = lock(descriptor, LOCK_EX | LOCK_NB)
        if failure == EWOULDBLOCK {
            // Another process holds it: wait in the kernel on a thread of our own.
            failure = await BlockingCall.run { lock(descriptor, LOCK_EX) }
        }
        if failure != 0 { throw Failure.lock(reason: String(cString: strerror(failure))) }
        defer { flock(descriptor, LOCK_UN) }
        return try await body()
    }

    /// `flock` retried across signals; 0 on success, otherwise the `errno` it failed with.
    private static func lock(_ descriptor: Int32, _ operation: Int32) -> Int32 {
        while flock(descriptor, operation) != 0 {
            if errno != EINTR { return errno }
        }
        return 0
    }
}

/// First-come, first-served async locks keyed by lock-file path, for the callers of one process.
private actor InProcessLocks {
    static let shared = InProcessLocks()

    private var held: Set<String> = []
    private var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]

    func acquire(_ path: String) async {
        guard held.contains(path) else {
            held.insert(path)
            return
        }
        await withCheckedContinuation { waiters[path, default: []].append($0) }
    }

    func release(_ path: String) {
        guard var queue = waiters[path], !queue.isEmpty else {
            held.remove(path)
            return
        }
        let next = queue.removeFirst()
        waiters[path] = queue.isEmpty ? nil : queue
        next.resume()  // ownership passes straight to the next waiter
    }
}
