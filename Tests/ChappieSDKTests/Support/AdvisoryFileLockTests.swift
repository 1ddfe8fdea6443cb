import Foundation
import Testing
@testable import ChappieCore

/// Counts how many bodies run at once.
private actor Occupancy {
    private(set) var inside = 0
    private(set) var most = 0
    private(set) var finished = 0

    func enter() {
        inside += 1
        most = max(most, inside)
    }

    func leave() {
        inside -= 1
        finished += 1
    }
}

@Suite("Advisory file lock")
struct AdvisoryFileLockTests {
    private func lockPath() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appending(path: "chappie-lock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appending(path: "test.lock").path
    }

    @Test("200 tasks contending for one lock take turns and all finish, without tying up a thread each",
          .timeLimit(.minutes(1)))
    func manyWaiters() async throws {
        let path = try lockPath()
        let occupancy = Occupancy()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    try await AdvisoryFileLock.withLock(path: path) {
                        await occupancy.enter()
                        await Task.yield()  // suspend while holding: others must still wait
                        await occupancy.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await occupancy.finished == 200)
        #expect(await occupancy.most == 1)
    }

    @Test("a throwing body releases the lock for the next holder")
    func throwingBodyReleases() async throws {
        struct Boom: Error {}
        let path = try lockPath()
        await #expect(throws: Boom.self) { try await AdvisoryFileLock.withLock(path: path) { throw Boom() } }
        #expect(try await AdvisoryFileLock.withLock(path: path) { 42 } == 42)
    }

    @Test("a symbolic link in place of the lock file is refused, not followed")
    func symbolicLinkRefused() async throws {
        let path = try lockPath()
        let target = path + ".target"
        _ = FileManager.default.createFile(atPath: target, contents: nil)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        let error = await #expect(throws: AdvisoryFileLock.Failure.self) { try await AdvisoryFileLock.withLock(path: path) { 1 } }
        guard case .open(_, symbolicLink: true) = error else {
            Issue.record("expected a refused link, got \(String(describing: error))")
            return
        }
    }
}

/// Holds `flock` on `path` through a descriptor of its own, as another process would (locks of
/// two open file descriptions conflict even inside one process).
private final class ForeignHolder {
    private var descriptor: Int32
    init(path: String) {
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        flock(descriptor, LOCK_EX)
    }
    /// Lets go of the lock.
    func release() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }
    deinit { release() }
}

@Suite("Advisory file lock: waits end")
struct AdvisoryFileLockWaitTests {
    private func lockPath() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appending(path: "chappie-lock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appending(path: "test.lock").path
    }

    @Test("cancelling a task that waits for another process's lock ends the wait at once", .timeLimit(.minutes(1)))
    func cancellationEndsTheWait() async throws {
        let path = try lockPath()
        let holder = ForeignHolder(path: path)
        // given: one waiter on the file, and one queued behind it in this process
        let waiting = Task { try await AdvisoryFileLock.withLock(path: path) { 1 } }
        let queued = Task { try await AdvisoryFileLock.withLock(path: path) { 2 } }
        // when
        waiting.cancel()
        queued.cancel()
        // then
        await #expect(throws: CancellationError.self) { try await waiting.value }
        await #expect(throws: CancellationError.self) { try await queued.value }
        holder.release()
        // and the lock is free for the next caller once the other process lets go
        #expect(try await AdvisoryFileLock.withLock(path: path, timeout: .seconds(30)) { 3 } == 3)
    }

    @Test("a lock held past the timeout is an error that says so, not an endless wait", .timeLimit(.minutes(1)))
    func timeout() async throws {
        let path = try lockPath()
        let holder = ForeignHolder(path: path)
        let error = await #expect(throws: AdvisoryFileLock.Failure.self) {
            try await AdvisoryFileLock.withLock(path: path, timeout: .milliseconds(50)) { 1 }
        }
        guard case .lock(let reason) = error else {
            Issue.record("expected a lock failure, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("held the lock"))
        holder.release()
    }

    @Test("a cancelled task still takes a free lock: it may be storing what the cancellation left behind")
    func cancelledTaskTakesFreeLock() async throws {
        let path = try lockPath()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await AdvisoryFileLock.withLock(path: path) { 5 }
        }
        #expect(try await task.value == 5)
    }

    @Test("the waiter takes the lock as soon as the other process lets go")
    func takenAfterRelease() async throws {
        let path = try lockPath()
        let holder = ForeignHolder(path: path)
        let waiting = Task { try await AdvisoryFileLock.withLock(path: path) { 7 } }
        holder.release()
        #expect(try await waiting.value == 7)
    }
}
