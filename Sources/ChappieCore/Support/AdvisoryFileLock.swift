import ChappieTransport
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
/// at most one of them waits on the file at a time; that one tries a non-blocking `flock` and,
/// while another process holds it, tries again after short pauses (5 ms doubling to 100 ms). A
/// blocking `flock` cannot be interrupted, so polling is what lets a wait end the moment the task
/// is cancelled (Ctrl-C) or when the timeout passes. The kernel drops the lock if the process
/// dies, so a crashed holder never wedges the folder.
///
/// The lock file is opened without following links or blocking, and must be a regular file owned
/// by this user: one planted by another user (or a FIFO) is refused, not used.
package enum AdvisoryFileLock {
    /// Why the lock could not be taken.
    package enum Failure: Error, Sendable, Equatable {
        /// `open(2)` refused the lock file (`symbolicLink` when it is a link, `ELOOP`), or it is
        /// not a regular file owned by this user.
        case open(reason: String, symbolicLink: Bool)
        /// `flock(2)` failed with something other than `EINTR`, or another process held the lock
        /// past the timeout.
        case lock(reason: String)
    }

    /// The longest wait for another process's lock when the caller names none: 60 seconds.
    package static let defaultTimeout: Duration = .seconds(60)

    /// Runs `body` holding the lock on the file at `path` (created 0600 if missing, links refused).
    /// The lock is released when `body` returns or throws. Waiting for another process ends with
    /// `CancellationError` when the task is cancelled, and with ``Failure/lock(reason:)`` when that
    /// process holds the lock for longer than `timeout`; a free lock is taken even by a cancelled
    /// task. Callers of this process queue in arrival order (``FIFOGate``), and a wait there ends
    /// with `CancellationError` too. Throws ``Failure``, `CancellationError` or what `body` throws.
    package static func withLock<Result>(
        path: String,
        timeout: Duration = defaultTimeout,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async throws -> Result {
        // Callers of this process queue first (a cancelled one stops waiting), then take the file lock.
        let gate = InProcessLocks.gate(for: path)
        try await gate.enter()
        defer { gate.leave() }
        return try await holdingFileLock(path: path, timeout: timeout, body)
    }

    private static func holdingFileLock<Result>(
        path: String,
        timeout: Duration,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async throws -> Result {
        let descriptor = try openLockFile(path)
        defer { close(descriptor) }
        try await waitForLock(descriptor, timeout: timeout)
        defer { flock(descriptor, LOCK_UN) }
        return try await body()
    }

    /// Runs `body` holding the lock on the file at `path` if no one holds it now (another process,
    /// or another caller of this process: each holder has its own open file), else returns nil at
    /// once without running it. Never waits. Throws ``Failure`` or what `body` throws.
    package static func withLockIfFree<Result>(path: String, _ body: () throws -> Result) throws -> Result? {
        let descriptor = try openLockFile(path)
        defer { close(descriptor) }
        let failure = lock(descriptor, LOCK_EX | LOCK_NB)
        if failure == EWOULDBLOCK { return nil }
        guard failure == 0 else { throw Failure.lock(reason: String(cString: strerror(failure))) }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// Opens (creating `0600`) the lock file and checks that it is a regular file of this user's.
    private static func openLockFile(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            throw Failure.open(reason: String(cString: strerror(code)), symbolicLink: code == ELOOP)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            throw Failure.open(reason: String(cString: strerror(code)), symbolicLink: false)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw Failure.open(reason: "the lock file is not a regular file", symbolicLink: false)
        }
        guard info.st_uid == geteuid() else {
            close(descriptor)
            throw Failure.open(reason: "the lock file belongs to another user (uid \(info.st_uid))", symbolicLink: false)
        }
        return descriptor
    }

    /// Takes the `flock`, polling while another process holds it. Throws `CancellationError` or
    /// ``Failure/lock(reason:)``.
    private static func waitForLock(_ descriptor: Int32, timeout: Duration) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var pause = Polling.firstPause
        while true {
            let failure = lock(descriptor, LOCK_EX | LOCK_NB)
            if failure == 0 { return }
            guard failure == EWOULDBLOCK else { throw Failure.lock(reason: String(cString: strerror(failure))) }
            // Only a wait is cancelled: a free lock is taken even by a cancelled task, which may be
            // storing what the cancellation left behind.
            try Task.checkCancellation()
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else {
                throw Failure.lock(reason: "another process held the lock for more than \(timeout.components.seconds) s")
            }
            try await Task.sleep(for: min(pause, remaining))
            pause = min(pause * 2, Polling.longestPause)
        }
    }

    /// `flock` retried across signals; 0 on success, otherwise the `errno` it failed with.
    private static func lock(_ descriptor: Int32, _ operation: Int32) -> Int32 {
        while flock(descriptor, operation) != 0 {
            if errno != EINTR { return errno }
        }
        return 0
    }

    /// Pauses between tries while another process holds the lock: short at first, so a lock
    /// released soon is taken soon, and never long, so the wait ends soon after the holder lets go.
    private enum Polling {
        static let firstPause: Duration = .milliseconds(5)
        static let longestPause: Duration = .milliseconds(100)
    }
}

/// First-come, first-served gates keyed by lock-file path, for the callers of one process (one
/// ``FIFOGate`` per lock file, kept for the life of the process: a process uses a few).
private enum InProcessLocks {
    private static let gates = LockedBox<[String: FIFOGate]>([:])

    static func gate(for path: String) -> FIFOGate {
        gates.withLock { gates in
            if let gate = gates[path] { return gate }
            let gate = FIFOGate()
            gates[path] = gate
            return gate
        }
    }
}
