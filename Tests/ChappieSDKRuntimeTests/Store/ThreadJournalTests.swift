@_spi(ChappieTesting) import ChappieSDKRuntime
import ChappieSDK
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

private func store(_ folder: URL, byteCap: Int = ChappieFileThreadStoreStoragePolicy.defaultByteCap,
                   faults: ChappieThreadStoreFaults? = nil) -> ChappieFileThreadStore {
    ChappieFileThreadStore(directory: threadsFolder(in: folder), storagePolicy: ChappieFileThreadStoreStoragePolicy(byteCap: byteCap),
                           faults: faults)
}

private func snapshotFile(_ folder: URL, _ id: UUID) -> URL {
    threadsFolder(in: folder).appending(path: id.uuidString.lowercased() + ".json")
}

private func journalFile(_ folder: URL, _ id: UUID) -> URL {
    threadsFolder(in: folder).appending(path: id.uuidString.lowercased() + ".journal")
}

/// What one more turn adds, the way the runtime stores it.
private func addTurn(_ thread: inout ChappieThread, _ text: String) {
    let at = ThreadFixtures.start.addingTimeInterval(Double(thread.turns.count + 1))
    thread.context.transcript.append(contentsOf: [.message(.user(text)), .message(.assistant("reply to \(text)"))])
    thread.context.updatedAt = at
    thread.turns.append(ChappieThreadTurn(input: [.user(text)], startedAt: at, endedAt: at, status: .completed, outputText: "reply to \(text)"))
    thread.updatedAt = at
}

/// The file's bytes and identity (inode, size, modification time), to prove it was not rewritten.
private func fingerprint(_ url: URL) throws -> (data: Data, inode: UInt64, modified: Int64) {
    var info = stat()
    guard lstat(url.path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
    #if canImport(Darwin)
    let modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
    #else
    let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    #endif
    return (try Data(contentsOf: url), UInt64(info.st_ino), modified)
}

@Suite("Thread journal: a turn costs what it adds (DESIGN §5)")
struct ThreadJournalTests {
    @Test("one more turn on a 10,000-message thread appends one record and leaves the snapshot untouched")
    func turnAppendsARecord() async throws {
        try await withTemporaryFolder { folder in
            // given: a long thread
            let files = store(folder)
            let long = try await files.save(ThreadFixtures.long(messages: 10_000))
            let before = try fingerprint(snapshotFile(folder, long.id))

            // when
            let stored = try await files.update(id: long.id) { addTurn(&$0, "one more") }

            // then: the snapshot is the same file, the journal holds one line of about the turn's size
            let after = try fingerprint(snapshotFile(folder, long.id))
            #expect(after.data == before.data && after.inode == before.inode && after.modified == before.modified)
            let journal = try Data(contentsOf: journalFile(folder, long.id))
            #expect(journal.filter { $0 == UInt8(ascii: "\n") }.count == 1)
            #expect(journal.count < 2_000, "a record holds the turn, not the thread: \(journal.count) bytes")
            #expect(stored.context.messageCount == 10_002)
            #expect(stored.revision == 2)
            // and a fresh store reads snapshot plus journal back as the same thread
            #expect(try await store(folder).thread(id: long.id) == stored)
            let listed = try #require(try await store(folder).threads(includingArchived: true).first)
            #expect(listed.messageCount == 10_002 && listed.turnCount == 1)
            #expect(listed.byteCount == before.data.count + journal.count)
        }
    }

    @Test("turns do not rewrite the index; a fresh store lists the thread from the index and the new journal records alone")
    func listingCatchesUpFromTheJournal() async throws {
        try await withTemporaryFolder { folder in
            // given: a thread, then three turns
            let files = store(folder)
            let thread = try await files.save(ThreadFixtures.long(messages: 1_000))
            let indexURL = threadsFolder(in: folder).appending(path: "index.json")
            let indexBefore = try fingerprint(indexURL)
            for index in 0..<3 { try await files.update(id: thread.id) { addTurn(&$0, "turn \(index)"); $0.title = "renamed \(index)" } }
            let indexAfter = try fingerprint(indexURL)
            #expect(indexAfter.data == indexBefore.data && indexAfter.inode == indexBefore.inode, "a turn rewrote the index")

            // when: the snapshot's bytes are spoiled in place, size and time kept, so reading it
            // would show; then a fresh store lists
            let snapshot = snapshotFile(folder, thread.id)
            var info = stat()
            #expect(lstat(snapshot.path, &info) == 0)
            let handle = try FileHandle(forWritingTo: snapshot)
            try handle.write(contentsOf: Data(repeating: UInt8(ascii: " "), count: Int(info.st_size)))
            try handle.close()
            #if canImport(Darwin)
            var times = [info.st_atimespec, info.st_mtimespec]
            #else
            var times = [info.st_atim, info.st_mtim]
            #endif
            #expect(utimensat(AT_FDCWD, snapshot.path, &times, 0) == 0)
            let fresh = store(folder)
            let listed = try #require(try await fresh.threads(includingArchived: true).first)

            // then: the entry is current, and nothing was read as damaged
            #expect(listed.title == "renamed 2")
            #expect(listed.messageCount == 1_006 && listed.turnCount == 3)
            #expect(await fresh.issues().isEmpty)
        }
    }

    @Test("appendTurn writes one record like update would, and refuses a stale turn count without writing", arguments: StoreKind.allCases)
    func appendTurn(kind: StoreKind) async throws {
        try await withTemporaryFolder { folder in
            let files = kind.make(in: folder)
            let thread = try await files.save(ThreadFixtures.small())
            var expected = thread
            addTurn(&expected, "one")
            let turn = try #require(expected.turns.last)
            let stored = try await files.appendTurn(turn, transcriptItems: Array(expected.context.transcript.suffix(2)), model: "gpt-5.4",
                                                    contextUpdatedAt: expected.context.updatedAt, to: thread.id, expectedTurnCount: 0)
            expected.model = "gpt-5.4"
            expected.context.model = "gpt-5.4"
            expected.revision = 2
            #expect(stored == expected)
            let reread = kind == .file ? try await kind.make(in: folder).thread(id: thread.id) : try await files.thread(id: thread.id)
            #expect(reread == expected)
            await #expect(throws: ChappieThreadStoreError.threadChangedElsewhere(thread.id)) {
                try await files.appendTurn(turn, transcriptItems: [], model: "x", contextUpdatedAt: Date(), to: thread.id, expectedTurnCount: 0)
            }
            #expect(try await files.thread(id: thread.id) == expected)
        }
    }

    @Test("many turns from two store instances interleave in the journal and all load")
    func turnsFromTwoInstances() async throws {
        try await withTemporaryFolder { folder in
            let first = store(folder)
            let second = store(folder)
            let thread = try await first.save(ThreadFixtures.small())
            for index in 0..<20 {
                try await (index.isMultiple(of: 2) ? first : second).update(id: thread.id) { addTurn(&$0, "turn \(index)") }
            }
            let loaded = try await store(folder).thread(id: thread.id)
            #expect(loaded.turns.map(\.input.first?.text) == (0..<20).map { "turn \($0)" })
            #expect(loaded.revision == 21)
            #expect(try await first.thread(id: thread.id) == loaded)
            #expect(try await second.thread(id: thread.id) == loaded)
        }
    }

    @Test("a torn last record is ignored on load, and the next append cuts it off",
          arguments: [#"{"revision":2,"tit"#, "\u{0}\u{0}\u{0}\u{0}", #"{"revision":2,"title":"x"}"# + "\n"])
    func tornTail(torn: String) async throws {
        try await withTemporaryFolder { folder in
            // given: a thread with two turns in its journal, then a torn append
            let files = store(folder)
            let thread = try await files.save(ThreadFixtures.small())
            try await files.update(id: thread.id) { addTurn(&$0, "kept 1") }
            let kept = try await files.update(id: thread.id) { addTurn(&$0, "kept 2") }
            let whole = try Data(contentsOf: journalFile(folder, thread.id))
            let handle = try FileHandle(forWritingTo: journalFile(folder, thread.id))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(torn.utf8))
            try handle.close()

            // when / then: it loads as it was before the torn append
            let reopened = store(folder)
            #expect(try await reopened.thread(id: thread.id) == kept)
            #expect(await reopened.issues().isEmpty, "a torn append after a crash is expected, not an issue")

            // when: one more turn
            let next = try await reopened.update(id: thread.id) { addTurn(&$0, "after the tear") }

            // then: the torn bytes are gone, the new record follows the good ones (checked on
            // what follows them: a good record's JSON keys come in any order, so one may itself
            // begin with the torn prefix)
            let journal = try Data(contentsOf: journalFile(folder, thread.id))
            #expect(journal.prefix(whole.count) == whole)
            let appended = String(decoding: journal.dropFirst(whole.count), as: UTF8.self)
            #expect(!appended.contains(torn))
            #expect(appended.hasSuffix("\n") && appended.filter { $0 == "\n" }.count == 1, "one whole record was appended")
            #expect(try await store(folder).thread(id: thread.id) == next)
            #expect(next.turns.count == 3)
        }
    }

    @Test("a journal damaged in the middle: the records before it are kept, the journal is set aside unchanged")
    func damagedJournal() async throws {
        try await withTemporaryFolder { folder in
            // given: three records, the second overwritten by hand
            let files = store(folder)
            let thread = try await files.save(ThreadFixtures.small())
            let afterFirst = try await files.update(id: thread.id) { addTurn(&$0, "one") }
            try await files.update(id: thread.id) { addTurn(&$0, "two") }
            try await files.update(id: thread.id) { addTurn(&$0, "three") }
            var lines = try Data(contentsOf: journalFile(folder, thread.id)).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            lines[1] = Data("{ edited by hand".utf8)[...]
            let damaged = Data(lines.joined(separator: [UInt8(ascii: "\n")]))
            try damaged.write(to: journalFile(folder, thread.id))

            // when
            let reopened = store(folder)
            let loaded = try await reopened.thread(id: thread.id)

            // then: the thread is what the first record made it, now in a snapshot; the journal's
            // bytes are kept in damaged/, and it is reported
            #expect(loaded == afterFirst)
            #expect(!FileManager.default.fileExists(atPath: journalFile(folder, thread.id).path))
            let issue = try #require(await reopened.issues().first { $0.kind == .journalSetAside })
            #expect(issue.threadID == thread.id)
            let aside = try #require(issue.setAsideAs)
            #expect(try Data(contentsOf: threadsFolder(in: folder).appending(path: aside)) == damaged)
            #expect(try await store(folder).thread(id: thread.id) == afterFirst)
        }
    }

    @Test("the journal is folded into a new snapshot once it outgrows it")
    func fold() async throws {
        try await withTemporaryFolder { folder in
            let files = store(folder)
            var expected = try await files.save(ThreadFixtures.small())
            var folded = false
            for index in 0..<400 where !folded {
                expected = try await files.update(id: expected.id) { addTurn(&$0, "turn \(index) " + String(repeating: "x", count: 200)) }
                folded = !FileManager.default.fileExists(atPath: journalFile(folder, expected.id).path)
            }
            #expect(folded, "the journal was never folded")
            #expect(try await store(folder).thread(id: expected.id) == expected)
            let size = try #require(try await store(folder).threads(includingArchived: true).first?.byteCount)
            #expect(size == (try Data(contentsOf: snapshotFile(folder, expected.id))).count)
        }
    }

    @Test("a journal already folded into its snapshot (the writer died before removing it) is skipped and removed")
    func staleJournal() async throws {
        try await withTemporaryFolder { folder in
            // given: a journal, and a snapshot written after it with the same content
            let files = store(folder)
            let thread = try await files.save(ThreadFixtures.small())
            let withTurn = try await files.update(id: thread.id) { addTurn(&$0, "one") }
            let journal = try Data(contentsOf: journalFile(folder, thread.id))
            let renamed = try await files.update(id: thread.id) { $0.turns[0].outputText = "rewritten" }  // not an append: a snapshot
            #expect(!FileManager.default.fileExists(atPath: journalFile(folder, thread.id).path))
            try journal.write(to: journalFile(folder, thread.id))
            chmod(journalFile(folder, thread.id).path, 0o600)

            // when / then
            let loaded = try await store(folder).thread(id: thread.id)
            #expect(loaded == renamed)
            #expect(loaded.turns.count == withTurn.turns.count)
            #expect(!FileManager.default.fileExists(atPath: journalFile(folder, thread.id).path))
        }
    }

    @Test("a thread written before journals (format 1) loads, and its first update rewrites it in the current format")
    func migration() async throws {
        try await withTemporaryFolder { folder in
            // given: a format 1 file, as the previous SDK wrote it
            let files = store(folder)
            var old = ThreadFixtures.small(title: "from before")
            old.formatVersion = 1
            old.revision = 4
            try await files.save(old)  // creates the folder; then the file is replaced by the old bytes
            try JSONEncoder().encode(old).write(to: snapshotFile(folder, old.id))
            chmod(snapshotFile(folder, old.id).path, 0o600)

            // when
            let reopened = store(folder)
            let loaded = try await reopened.thread(id: old.id)
            let first = try await reopened.update(id: old.id) { addTurn(&$0, "one") }
            let second = try await reopened.update(id: old.id) { addTurn(&$0, "two") }

            // then
            #expect(loaded.title == "from before" && loaded.formatVersion == 1)
            let rewritten = try JSONSerialization.jsonObject(with: Data(contentsOf: snapshotFile(folder, old.id))) as? [String: Any]
            #expect(rewritten?["formatVersion"] as? Int == ChappieThread.currentFormatVersion)
            #expect((rewritten?["turns"] as? [Any])?.count == 1, "the first update is a snapshot")
            #expect(first.revision == 5)
            #expect(String(decoding: try Data(contentsOf: journalFile(folder, old.id)), as: UTF8.self).contains("two"),
                    "the second one a journal record")
            #expect(try await store(folder).thread(id: old.id) == second)
        }
    }

    @Test("a full disk fails the turn's write with ENOSPC and leaves snapshot and journal byte for byte", arguments: [0, 5])
    func fullDisk(bytesWritten: Int) async throws {
        try await withTemporaryFolder { folder in
            // given: a thread with a journal, and a store whose thread writes fail
            let thread = try await store(folder).save(ThreadFixtures.small())
            let kept = try await store(folder).update(id: thread.id) { addTurn(&$0, "kept") }
            let snapshot = try Data(contentsOf: snapshotFile(folder, thread.id))
            let journal = try Data(contentsOf: journalFile(folder, thread.id))
            let full = store(folder, faults: .failingThreadWrites(errorNumber: ENOSPC, bytesWritten: bytesWritten))

            // when
            let error = await #expect(throws: ChappieThreadStoreError.self) {
                try await full.update(id: thread.id) { addTurn(&$0, "lost to a full disk") }
            }

            // then
            guard case .io(let message) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(message.contains(String(cString: strerror(ENOSPC))))
            #expect(try Data(contentsOf: snapshotFile(folder, thread.id)) == snapshot)
            #expect(try Data(contentsOf: journalFile(folder, thread.id)) == journal)
            #expect(try await full.thread(id: thread.id) == kept)
            #expect(try await store(folder).thread(id: thread.id) == kept)
            // and a whole-thread save fails the same way without touching the files
            await #expect(throws: ChappieThreadStoreError.self) { try await full.save(kept) }
            #expect(try Data(contentsOf: snapshotFile(folder, thread.id)) == snapshot)
        }
    }

    @Test("a journal without its snapshot (a delete that was cut short) is set aside, not applied")
    func orphanJournal() async throws {
        try await withTemporaryFolder { folder in
            let files = store(folder)
            let thread = try await files.save(ThreadFixtures.small())
            try await files.update(id: thread.id) { addTurn(&$0, "one") }
            let journal = try Data(contentsOf: journalFile(folder, thread.id))
            try FileManager.default.removeItem(at: snapshotFile(folder, thread.id))
            let reopened = store(folder)
            #expect(try await reopened.threads(includingArchived: true).isEmpty)
            let issue = try #require(await reopened.issues().first { $0.kind == .journalSetAside })
            #expect(try Data(contentsOf: threadsFolder(in: folder).appending(path: try #require(issue.setAsideAs))) == journal)
            try await reopened.save(ThreadFixtures.small(id: thread.id, title: "new"))
            #expect(try await store(folder).thread(id: thread.id).turns.isEmpty)
        }
    }

    @Test("a FIFO in place of a thread's snapshot or journal is refused at once, never read", .timeLimit(.minutes(1)), arguments: ["json", "journal"])
    func fifoRefused(suffix: String) async throws {
        try await withTemporaryFolder { folder in
            // given
            let files = store(folder)
            let good = try await files.save(ThreadFixtures.small(title: "good"))
            let planted = try await files.save(ThreadFixtures.small(title: "planted"))
            let path = threadsFolder(in: folder).appending(path: planted.id.uuidString.lowercased() + "." + suffix).path
            try? FileManager.default.removeItem(atPath: path)
            #expect(mkfifo(path, 0o600) == 0)

            // when / then: no read blocks on the FIFO (the test's time limit would end a hang)
            let reopened = store(folder)
            #expect(try await reopened.threads(includingArchived: true).map(\.id) == [good.id])
            await #expect(throws: ChappieThreadStoreError.self) { try await reopened.thread(id: planted.id) }
            #expect(await reopened.issues().contains { $0.kind == .insecureFile && $0.threadID == planted.id })
            #expect(try await reopened.thread(id: good.id).title == "good")
        }
    }

    @Test("a tampered index with impossible byte counts and revisions is rebuilt, and saving still works")
    func tamperedIndex() async throws {
        try await withTemporaryFolder { folder in
            // given: two threads, then byte counts of Int.max and a revision of Int.max in the index
            let files = store(folder)
            let one = try await files.save(ThreadFixtures.small(title: "one"))
            try await files.save(ThreadFixtures.small(title: "two"))
            let indexURL = threadsFolder(in: folder).appending(path: "index.json")
            var index = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: indexURL)) as? [String: Any])
            index["threads"] = (index["threads"] as? [[String: Any]])?.map { entry in
                var entry = entry
                var summary = entry["summary"] as? [String: Any] ?? [:]
                summary["byteCount"] = Int.max
                entry["summary"] = summary
                entry["revision"] = Int.max
                return entry
            }
            try JSONSerialization.data(withJSONObject: index).write(to: indexURL)
            chmod(indexURL.path, 0o600)

            // when: a later save, in this instance and in a fresh one
            try await files.save(ThreadFixtures.small(title: "three"))
            let fresh = store(folder)
            let updated = try await fresh.update(id: one.id) { addTurn(&$0, "more") }

            // then: no overflow, the counts are the files' sizes
            let usage = try await fresh.usage()
            let onDisk = allFiles(in: threadsFolder(in: folder)).filter { $0.lastPathComponent != "index.json" && $0.lastPathComponent != ".lock" }
                .reduce(0) { $0 + ((try? Data(contentsOf: $1).count) ?? 0) }
            #expect(usage.threadCount == 3)
            #expect(usage.bytesUsed == onDisk)
            #expect(updated.revision == 2)
        }
    }
}
