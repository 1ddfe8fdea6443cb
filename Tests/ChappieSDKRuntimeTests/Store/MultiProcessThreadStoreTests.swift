import ChappieSDK
import ChappieSDKRuntime
import ChappieTestSupport
import Foundation
import Testing

/// Writers in other processes: one killed with SIGKILL in the middle of a save loop, and two
/// writing at once. The children are this test binary running ``ThreadStoreChildProcess``
/// (see ``ChildProcess``).
@Suite("Thread store across processes")
struct MultiProcessThreadStoreTests {
    @Test("a writer killed with SIGKILL mid save loop leaves every thread loadable", .timeLimit(.minutes(3)))
    func killedWriter() async throws {
        try await withTemporaryFolder { folder in
            // given: seeded threads
            let directory = threadsFolder(in: folder)
            let seed = ChappieFileThreadStore(directory: directory)
            var seeded: [UUID] = []
            for index in 0..<5 { seeded.append(try await seed.save(ThreadFixtures.small(title: "seed \(index)")).id) }
            for round in 0..<3 {
                // when: a child rewrites and creates threads in a tight loop and is killed
                let child = try ChildProcess(suite: "ThreadStoreChildProcess", role: "saveLoop",
                                             arguments: ["DIR": directory.path, "IDS": seeded.map(\.uuidString).joined(separator: ",")])
                let progress = try await child.firstLine { $0.hasPrefix("saved ") && (Int($0.dropFirst(6)) ?? 0) >= 20 + round * 7 }
                #expect(progress != nil, "the child stopped before saving")
                child.kill()
                let exit = try await child.waitForExit()
                #expect(exit.killedBySignal)
                // then: every thread loads, none is reported damaged
                let store = ChappieFileThreadStore(directory: directory)
                let listed = try await store.threads(includingArchived: true)
                #expect(Set(seeded).isSubset(of: Set(listed.map(\.id))))
                for summary in listed { _ = try await store.thread(id: summary.id) }
                let onDisk = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") && $0 != "index.json" }
                #expect(onDisk.count == listed.count)
                #expect(await store.issues().allSatisfy { $0.kind == .staleTemporaryFileRemoved })
            }
        }
    }

    @Test("two processes writing at once lose nothing", .timeLimit(.minutes(3)))
    func twoWriters() async throws {
        try await withTemporaryFolder { folder in
            // given
            let directory = threadsFolder(in: folder)
            let shared = try await ChappieFileThreadStore(directory: directory).save(ThreadFixtures.small(title: "shared"))
            let count = 40
            let children = try ["A", "B"].map { tag in
                try ChildProcess(suite: "ThreadStoreChildProcess", role: "writer",
                                 arguments: ["DIR": directory.path, "TAG": tag, "SHARED": shared.id.uuidString, "COUNT": "\(count)"])
            }
            // when: both are ready, then both start together
            for child in children { #expect(try await child.firstLine { $0 == "ready" } != nil) }
            for child in children { child.go() }
            for child in children {
                let exit = try await child.waitForExit()
                #expect(!exit.killedBySignal && exit.status == 0)
            }
            // then
            let store = ChappieFileThreadStore(directory: directory)
            let titles = Set(try await store.threads(includingArchived: true).map(\.title))
            let expected = Set(["A", "B"].flatMap { tag in (0..<count).map { "\(tag)-\($0)" } })
            #expect(titles == expected.union(["shared"]))
            let messages = try await store.thread(id: shared.id).context.messages.dropFirst(2).map(\.text)
            #expect(messages.count == 2 * count)
            #expect(Set(messages) == expected)
            #expect(await store.issues().isEmpty)
        }
    }
}

/// The child side of ``MultiProcessThreadStoreTests``: each test runs only in a child process
/// started with its role, and is skipped in a normal test run.
@Suite("Child writer process (runs only when started by a multi-process test)")
struct ThreadStoreChildProcess {
    @Test("save loop", .enabled(if: ChildProcess.role == "saveLoop"))
    func saveLoop() async throws {
        let store = ChappieFileThreadStore(directory: URL(fileURLWithPath: try #require(ChildProcess.argument("DIR"))))
        let ids = try #require(ChildProcess.argument("IDS")).split(separator: ",").compactMap { UUID(uuidString: String($0)) }
        let payload = String(repeating: "payload ", count: 2_000)
        // Runs until killed; the cap only stops a child whose parent vanished without killing it.
        for iteration in 0..<20_000 {
            if iteration.isMultiple(of: 3) {
                try await store.save(ThreadFixtures.small(title: "loop \(iteration)", text: payload))
            } else {
                try await store.update(id: ids[iteration % ids.count]) { $0.context.messages.append(.user("\(iteration) \(payload)")) }
            }
            ChildProcess.report("saved \(iteration)")
        }
    }

    @Test("writer", .enabled(if: ChildProcess.role == "writer"))
    func writer() async throws {
        let store = ChappieFileThreadStore(directory: URL(fileURLWithPath: try #require(ChildProcess.argument("DIR"))))
        let tag = try #require(ChildProcess.argument("TAG"))
        let shared = try #require(ChildProcess.argument("SHARED").flatMap(UUID.init(uuidString:)))
        let count = try #require(ChildProcess.argument("COUNT").flatMap(Int.init))
        ChildProcess.report("ready")
        ChildProcess.waitForGo()
        for index in 0..<count {
            try await store.save(ThreadFixtures.small(title: "\(tag)-\(index)"))
            try await store.update(id: shared) { $0.context.messages.append(.user("\(tag)-\(index)")) }
        }
        ChildProcess.report("done")
    }
}
