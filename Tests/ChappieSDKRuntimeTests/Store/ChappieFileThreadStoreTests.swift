import ChappieSDK
import ChappieSDKRuntime
import ChappieSDKTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file store in `folder`'s `threads` sub-folder.
private func fileStore(_ folder: URL, byteCap: Int = ChappieFileThreadStoreStoragePolicy.defaultByteCap,
                       redactor: ChappieThreadRedactor = .credentials) -> ChappieFileThreadStore {
    ChappieFileThreadStore(directory: threadsFolder(in: folder), storagePolicy: ChappieFileThreadStoreStoragePolicy(byteCap: byteCap),
                           redactor: redactor)
}

private func threadFile(_ folder: URL, _ id: UUID) -> URL {
    threadsFolder(in: folder).appending(path: id.uuidString.lowercased() + ".json")
}

@Suite("File thread store")
struct ChappieFileThreadStoreTests {
    @Test("a new store instance on the same folder lists and loads what an earlier one saved")
    func survivesRestart() async throws {
        try await withTemporaryFolder { folder in
            // given
            let first = fileStore(folder)
            let older = ThreadFixtures.small(title: "older", updatedAt: ThreadFixtures.start)
            let newer = ThreadFixtures.small(title: "newer", updatedAt: ThreadFixtures.start.addingTimeInterval(100))
            let archived = ThreadFixtures.small(title: "archived", updatedAt: ThreadFixtures.start.addingTimeInterval(200), archived: true)
            for thread in [older, newer, archived] { try await first.save(thread) }
            // when
            let second = fileStore(folder)
            let listed = try await second.threads(includingArchived: false)
            let all = try await second.threads(includingArchived: true)
            // then
            #expect(listed.map(\.title) == ["newer", "older"])
            #expect(all.map(\.title) == ["archived", "newer", "older"])
            #expect(listed[0].messageCount == 2)
            #expect(listed[0].byteCount > 0)
            #expect(try await second.thread(id: newer.id).context == newer.context)
            #expect(await second.issues().isEmpty)
        }
    }

    @Test("files are named by thread UUID only, whatever the title says")
    func fileNamesNeverFromUserText() async throws {
        try await withTemporaryFolder { folder in
            let store = fileStore(folder)
            let thread = ThreadFixtures.small(title: "../../etc/passwd\u{0}; rm -rf /", text: "../../../x")
            try await store.save(thread)
            let names = try FileManager.default.contentsOfDirectory(atPath: threadsFolder(in: folder).path).sorted()
            #expect(names == [".lock", "index.json", thread.id.uuidString.lowercased() + ".json"].sorted())
            #expect(FileManager.default.fileExists(atPath: folder.appending(path: "etc").path) == false)
        }
    }

    @Test("folders are 0700 and every file 0600; a loose folder is tightened")
    func permissions() async throws {
        try await withTemporaryFolder { folder in
            // given: a pre-existing folder others can read
            let threads = threadsFolder(in: folder)
            try FileManager.default.createDirectory(at: threads, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            let store = fileStore(folder)
            // when
            try await store.save(ThreadFixtures.small())
            // then
            #expect(ChappieSDKRuntimeTests.permissions(of: threads) == 0o700)
            let files = allFiles(in: threads)
            #expect(files.count == 3)
            for file in files { #expect(ChappieSDKRuntimeTests.permissions(of: file) == 0o600, "\(file.lastPathComponent)") }
        }
    }

    @Test("a thread file others can read is refused and reported, and the others still load")
    func insecureFileRefused() async throws {
        try await withTemporaryFolder { folder in
            let store = fileStore(folder)
            let good = ThreadFixtures.small(title: "good")
            let exposed = ThreadFixtures.small(title: "exposed")
            try await store.save(good)
            try await store.save(exposed)
            chmod(threadFile(folder, exposed.id).path, 0o644)
            let reopened = fileStore(folder)
            await #expect(throws: ChappieThreadStoreError.insecurePermissions(threadFile(folder, exposed.id).path)) {
                try await reopened.thread(id: exposed.id)
            }
            #expect(try await reopened.threads(includingArchived: true).map(\.id) == [good.id])
            #expect(await reopened.issues().contains { $0.kind == .insecureFile && $0.threadID == exposed.id })
        }
    }

    @Test("a symbolic link in place of a thread file is not followed")
    func symlinkRefused() async throws {
        try await withTemporaryFolder { folder in
            let store = fileStore(folder)
            let thread = ThreadFixtures.small()
            try await store.save(thread)
            let target = folder.appending(path: "elsewhere.json")
            try FileManager.default.moveItem(at: threadFile(folder, thread.id), to: target)
            try FileManager.default.createSymbolicLink(at: threadFile(folder, thread.id), withDestinationURL: target)
            await #expect(throws: ChappieThreadStoreError.symbolicLinkRefused(threadFile(folder, thread.id).path)) {
                try await fileStore(folder).thread(id: thread.id)
            }
        }
    }

    @Test("a corrupt file among good ones: the good ones load, the bad one is set aside unchanged and reported",
          arguments: ["", "   ", "{", #"{"formatVersion":1,"id":"not-a-uuid"}"#, #"[1,2,3]"#, "\u{0}\u{1}binary"])
    func corruptFileIsolated(garbage: String) async throws {
        try await withTemporaryFolder { folder in
            // given
            let store = fileStore(folder)
            let threads = (0..<3).map { ThreadFixtures.small(title: "t\($0)", updatedAt: ThreadFixtures.start.addingTimeInterval(Double($0))) }
            for thread in threads { try await store.save(thread) }
            let damaged = threads[1]
            try Data(garbage.utf8).write(to: threadFile(folder, damaged.id))
            // when
            let reopened = fileStore(folder)
            let listed = try await reopened.threads(includingArchived: true)
            // then
            #expect(listed.map(\.id) == [threads[2].id, threads[0].id])
            #expect(try await reopened.thread(id: threads[0].id) .title == "t0")
            #expect(try await reopened.thread(id: threads[2].id).title == "t2")
            await #expect(throws: ChappieThreadStoreError.threadNotFound(damaged.id)) { try await reopened.thread(id: damaged.id) }
            let issue = try #require(await reopened.issues().first { $0.kind == .corruptThread })
            #expect(issue.threadID == damaged.id)
            let aside = try #require(issue.setAsideAs)
            #expect(try Data(contentsOf: threadsFolder(in: folder).appending(path: aside)) == Data(garbage.utf8))
        }
    }

    @Test("loading a thread damaged while the store is open throws corruptThread and keeps its bytes")
    func corruptOnLoad() async throws {
        try await withTemporaryFolder { folder in
            let store = fileStore(folder)
            let thread = ThreadFixtures.small()
            try await store.save(thread)
            let truncated = try Data(contentsOf: threadFile(folder, thread.id)).prefix(40)
            try truncated.write(to: threadFile(folder, thread.id))
            let error = await #expect(throws: ChappieThreadStoreError.self) { try await store.thread(id: thread.id) }
            guard case .corruptThread(let id, _) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(id == thread.id)
            let damaged = allFiles(in: threadsFolder(in: folder).appending(path: "damaged"))
            #expect(damaged.count == 1)
            #expect(try damaged.first.map { try Data(contentsOf: $0) } == truncated)
            await #expect(throws: ChappieThreadStoreError.threadNotFound(thread.id)) { try await store.thread(id: thread.id) }
        }
    }

    @Test("another thread's data under a thread's name counts as foreign, not as that thread")
    func misplacedThread() async throws {
        try await withTemporaryFolder { folder in
            let store = fileStore(folder)
            let one = ThreadFixtures.small(title: "one")
            let two = ThreadFixtures.small(title: "two")
            try await store.save(one)
            try await store.save(two)
            try FileManager.default.removeItem(at: threadFile(folder, two.id))
            try FileManager.default.copyItem(at: threadFile(folder, one.id), to: threadFile(folder, two.id))
            let reopened = fileStore(folder)
            #expect(try await reopened.threads(includingArchived: true).map(\.title) == ["one"])
            #expect(await reopened.issues().contains { $0.kind == .corruptThread && $0.threadID == two.id })
        }
    }

    @Test("a thread from a newer format version is left alone and reported")
    func newerFormatLeftAlone() async throws {
        try await withTemporaryFolder { folder in
            let store = fileStore(folder)
            let thread = ThreadFixtures.small()
            try await store.save(thread)
            let future = #"{"formatVersion":99,"id":"\#(thread.id.uuidString)","shape":"unknown"}"#
            try Data(future.utf8).write(to: threadFile(folder, thread.id))
            let reopened = fileStore(folder)
            await #expect(throws: ChappieThreadStoreError.unsupportedFormatVersion(thread.id, version: 99)) {
                try await reopened.thread(id: thread.id)
            }
            #expect(try await reopened.threads(includingArchived: true).isEmpty)
            #expect(try String(contentsOf: threadFile(folder, thread.id), encoding: .utf8) == future)
            #expect(await reopened.issues().contains { $0.kind == .unsupportedFormat })
        }
    }

    @Test("foreign files in the folder are reported and never touched")
    func foreignFiles() async throws {
        try await withTemporaryFolder { folder in
            let store = fileStore(folder)
            try await store.save(ThreadFixtures.small())
            let foreign = threadsFolder(in: folder).appending(path: "notes.txt")
            try Data("mine".utf8).write(to: foreign)
            let reopened = fileStore(folder)
            #expect(try await reopened.threads(includingArchived: true).count == 1)
            #expect(await reopened.issues().map(\.kind) == [.foreignFile])
            #expect(try String(contentsOf: foreign, encoding: .utf8) == "mine")
        }
    }

    @Test("a missing or damaged index is rebuilt from the thread files", arguments: [nil, "{oops"] as [String?])
    func indexRebuilt(replacement: String?) async throws {
        try await withTemporaryFolder { folder in
            let store = fileStore(folder)
            let threads = (0..<4).map { ThreadFixtures.small(title: "t\($0)", updatedAt: ThreadFixtures.start.addingTimeInterval(Double($0))) }
            for thread in threads { try await store.save(thread) }
            let index = threadsFolder(in: folder).appending(path: "index.json")
            if let replacement { try Data(replacement.utf8).write(to: index) } else { try FileManager.default.removeItem(at: index) }
            let reopened = fileStore(folder)
            #expect(try await reopened.threads(includingArchived: true).map(\.title) == ["t3", "t2", "t1", "t0"])
            #expect(await reopened.issues().contains { $0.kind == .indexRebuilt } == (replacement != nil))
        }
    }

    @Test("a thread file changed behind the index's back is noticed when listing")
    func staleIndexEntryRefreshed() async throws {
        try await withTemporaryFolder { folder in
            // given: a copy of the folder's thread file from before a later save (as if a writer
            // died between renaming the thread file and renaming the index)
            let store = fileStore(folder)
            var thread = ThreadFixtures.small(title: "before")
            thread = try await store.save(thread)
            let snapshotIndex = try Data(contentsOf: threadsFolder(in: folder).appending(path: "index.json"))
            thread.title = "after"
            try await store.save(thread)
            try snapshotIndex.write(to: threadsFolder(in: folder).appending(path: "index.json"))
            chmod(threadsFolder(in: folder).appending(path: "index.json").path, 0o600)
            // when
            let listed = try await fileStore(folder).threads(includingArchived: true)
            // then
            #expect(listed.map(\.title) == ["after"])
        }
    }

    @Test("a temporary file left by a killed writer never replaces the thread and is cleaned up")
    func killedWriterLeavesOriginal() async throws {
        try await withTemporaryFolder { folder in
            // given: a half-written temporary file, never renamed (FAILURE-CASES 34d)
            let store = fileStore(folder)
            let thread = ThreadFixtures.small(title: "original")
            try await store.save(thread)
            let original = try Data(contentsOf: threadFile(folder, thread.id))
            let partial = threadsFolder(in: folder).appending(path: ".tmp-\(UUID().uuidString.lowercased()).partial")
            try original.prefix(original.count / 2).write(to: partial)
            // when
            let reopened = fileStore(folder)
            let loaded = try await reopened.thread(id: thread.id)
            // then
            #expect(loaded.title == "original")
            #expect(try Data(contentsOf: threadFile(folder, thread.id)) == original)
            #expect(!FileManager.default.fileExists(atPath: partial.path))
            #expect(await reopened.issues().map(\.kind) == [.staleTemporaryFileRemoved])
        }
    }

    @Test("100 concurrent updates from two store instances on one folder all land")
    func concurrentUpdatesAllLand() async throws {
        try await withTemporaryFolder { folder in
            // given
            let first = fileStore(folder)
            let second = fileStore(folder)
            let thread = ThreadFixtures.small()
            try await first.save(thread)
            // when
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<100 {
                    let store = index.isMultiple(of: 2) ? first : second
                    group.addTask {
                        try await store.update(id: thread.id) { $0.context.messages.append(.user("update \(index)")) }
                    }
                }
                try await group.waitForAll()
            }
            // then
            let loaded = try await fileStore(folder).thread(id: thread.id)
            #expect(loaded.context.messages.count == 102)
            #expect(Set(loaded.context.messages.dropFirst(2).map(\.text)) == Set((0..<100).map { "update \($0)" }))
            #expect(loaded.revision == 101)
        }
    }

    @Test("delete removes the file and the index entry; deleting twice is fine")
    func delete() async throws {
        try await withTemporaryFolder { folder in
            let store = fileStore(folder)
            let keep = ThreadFixtures.small(title: "keep")
            let drop = ThreadFixtures.small(title: "drop")
            try await store.save(keep)
            try await store.save(drop)
            try await store.delete(id: drop.id)
            try await store.delete(id: drop.id)
            #expect(!FileManager.default.fileExists(atPath: threadFile(folder, drop.id).path))
            #expect(try await fileStore(folder).threads(includingArchived: true).map(\.title) == ["keep"])
            await #expect(throws: ChappieThreadStoreError.threadNotFound(drop.id)) { try await store.thread(id: drop.id) }
        }
    }

    @Test("reading a store whose folder does not exist lists nothing and creates no folder (a read-only parent is fine)")
    func readingCreatesNothing() async throws {
        try await withTemporaryFolder { folder in
            let store = fileStore(folder)
            try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: folder.path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path) }
            #expect(try await store.threads(includingArchived: true).isEmpty)
            #expect(try await store.usage().threadCount == 0)
            let id = UUID()
            await #expect(throws: ChappieThreadStoreError.threadNotFound(id)) { try await store.thread(id: id) }
            #expect(!FileManager.default.fileExists(atPath: threadsFolder(in: folder).path))
        }
    }

    @Test("a store folder removed while the store is open is created again on the next save")
    func folderRemovedWhileOpen() async throws {
        try await withTemporaryFolder { folder in
            let store = fileStore(folder)
            try await store.save(ThreadFixtures.small(title: "gone"))
            try FileManager.default.removeItem(at: threadsFolder(in: folder))
            #expect(try await store.threads(includingArchived: true).isEmpty)
            try await store.save(ThreadFixtures.small(title: "new"))
            #expect(try await fileStore(folder).threads(includingArchived: true).map(\.title) == ["new"])
            #expect(ChappieSDKRuntimeTests.permissions(of: threadsFolder(in: folder)) == 0o700)
        }
    }

    @Test("the default folder is the app's own: $XDG_DATA_HOME/<executable>/chappie/threads on Linux")
    func defaultFolder() {
        #if !canImport(Darwin)
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.local/share"
        let app = ProcessInfo.processInfo.processName
        #expect(ChappieFileThreadStore.defaultDirectory().standardizedFileURL.path
                == URL(fileURLWithPath: base).appending(path: "\(app)/chappie/threads").standardizedFileURL.path)
        #expect(ChappieFileThreadStore.directory(forApp: "notes") != ChappieFileThreadStore.directory(forApp: "chappie"))
        #expect(ChappieFileThreadStore.sharedLegacyDirectory().standardizedFileURL.path
                == URL(fileURLWithPath: base).appending(path: "chappie/threads").standardizedFileURL.path)
        #endif
    }
}
