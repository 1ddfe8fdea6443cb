import Foundation
import Testing
@testable import ChappieSDK

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
