@_spi(ChappieTesting) import ChappieSDKRuntime
import ChappieSDK
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

private let id = ThreadFormatFixture.threadID

private func snapshotFile(_ folder: URL) -> URL {
    threadsFolder(in: folder).appending(path: id.uuidString.lowercased() + ".json")
}

private func journalFile(_ folder: URL) -> URL {
    threadsFolder(in: folder).appending(path: id.uuidString.lowercased() + ".journal")
}

/// A store folder holding the format 2 fixture files (mode 0700, files 0600, as the store makes them).
private func format2Folder(in folder: URL) throws -> URL {
    let source = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil)).appending(path: "format2")
    let threads = threadsFolder(in: folder)
    try FileManager.default.createDirectory(at: threads, withIntermediateDirectories: true)
    chmod(threads.path, 0o700)
    for name in try FileManager.default.contentsOfDirectory(atPath: source.path) where !name.hasSuffix(".md") {
        try FileManager.default.copyItem(at: source.appending(path: name), to: threads.appending(path: name))
        chmod(threads.appending(path: name).path, 0o600)
    }
    return threads
}

/// The thread the format 2 fixture files hold, as a format 2 reader returns it.
private func expectedFormat2Thread() -> ChappieThread {
    var thread = ThreadFormatFixture.expected(ThreadFormatFixture.writes)
    thread.formatVersion = 2
    return thread
}

/// How many times `text` occurs in `data`.
private func occurrences(of text: String, in data: Data) -> Int {
    let needle = Data(text.utf8)
    var count = 0
    var start = data.startIndex
    while let range = data[start...].firstRange(of: needle) {
        count += 1
        start = range.upperBound
    }
    return count
}

/// The store's files for the fixture thread, snapshot then journal (empty when there is none).
private func threadBytes(_ folder: URL) throws -> Data {
    try Data(contentsOf: snapshotFile(folder)) + ((try? Data(contentsOf: journalFile(folder))) ?? Data())
}

@Suite("Thread file formats: older files load and move to the current format")
struct ThreadFormatMigrationTests {
    /// Writes `Fixtures/format2` again (run once, with the SDK that wrote format 2):
    /// `CHAPPIE_WRITE_FORMAT_FIXTURES=<folder> swift test --filter writeFormatFixtures`.
    @Test("writes the format fixtures", .enabled(if: ProcessInfo.processInfo.environment["CHAPPIE_WRITE_FORMAT_FIXTURES"] != nil))
    func writeFormatFixtures() async throws {
        let folder = URL(fileURLWithPath: try required(ProcessInfo.processInfo.environment["CHAPPIE_WRITE_FORMAT_FIXTURES"]))
        let store = ChappieFileThreadStore(directory: folder)
        let stored = try await ThreadFormatFixture.write(ThreadFormatFixture.writes, to: store)
        #expect(stored == ThreadFormatFixture.expected(ThreadFormatFixture.writes))
    }

    @Test("format 2 files (a snapshot with a compaction, and a journal tail) read as the thread that was stored")
    func readsFormat2() async throws {
        try await withTemporaryFolder { folder in
            // given: the files the format 2 SDK wrote
            let threads = try format2Folder(in: folder)
            let store = ChappieFileThreadStore(directory: threads)

            // when
            let loaded = try await store.thread(id: id)
            let listed = try await store.threads(includingArchived: true)

            // then: every field as stored, and the listing agrees
            let expected = expectedFormat2Thread()
            #expect(loaded == expected)
            #expect(loaded.turns.count == 8 && loaded.revision == 9 && loaded.compactions.count == 1)
            #expect(listed.map(\.id) == [id])
            #expect(listed.first?.turnCount == 8 && listed.first?.messageCount == expected.context.messageCount)
            #expect(await store.issues().isEmpty)
        }
    }

    @Test("the first turn after format 2 rewrites the thread as a format 3 snapshot; the next one is a format 3 journal record")
    func appendsAfterFormat2() async throws {
        try await withTemporaryFolder { folder in
            // given: the format 2 files
            let threads = try format2Folder(in: folder)
            let v2Bytes = try threadBytes(folder)
            let store = ChappieFileThreadStore(directory: threads)
            let nine = ThreadFormatFixture.withTool(9, question: "Ninth: read the last notes")
            let ten = ThreadFormatFixture.plain(10, question: "Tenth question")

            // when: two more turns, the runtime's way
            let first = try await store.appendTurn(nine.turn, transcriptItems: nine.transcriptItems, model: "gpt-5.5",
                                                   contextUpdatedAt: nine.contextUpdatedAt, to: id, expectedTurnCount: 8)
            let rewritten = try Data(contentsOf: snapshotFile(folder))
            let journalAfterFirst = FileManager.default.fileExists(atPath: journalFile(folder).path)
            let second = try await store.appendTurn(ten.turn, transcriptItems: ten.transcriptItems, model: "gpt-5.5",
                                                    contextUpdatedAt: ten.contextUpdatedAt, to: id, expectedTurnCount: 9)

            // then: the values are the stored thread plus the turns, now in format 3
            var expected = expectedFormat2Thread()
            expected.formatVersion = 3
            expected.addTurnForTests(nine)
            expected.revision += 1
            #expect(first == expected)
            expected.addTurnForTests(ten)
            expected.revision += 1
            #expect(second == expected)
            // the first write is a snapshot in format 3 that replaced the journal, the second a format 3 record
            let header = try JSONSerialization.jsonObject(with: rewritten) as? [String: Any]
            #expect(header?["formatVersion"] as? Int == 3 && ChappieThread.currentFormatVersion == 3)
            #expect(!journalAfterFirst, "the format 2 journal was folded into the new snapshot")
            let journal = try Data(contentsOf: journalFile(folder))
            #expect(journal.filter { $0 == UInt8(ascii: "\n") }.count == 1)
            #expect((try JSONSerialization.jsonObject(with: journal.dropLast()) as? [String: Any])?["format"] as? Int == 3)
            // and a fresh store reads it back, listing included
            let fresh = ChappieFileThreadStore(directory: threads)
            #expect(try await fresh.thread(id: id) == expected)
            #expect(try await fresh.threads(includingArchived: true).first?.turnCount == 10)
            // each reply is stored once now (format 2 held it three times: transcript, output item, output text)
            let v3Bytes = try threadBytes(folder)
            #expect(occurrences(of: "Answer 8: word8x0", in: v2Bytes) == 3)
            #expect(occurrences(of: "Answer 8: word8x0", in: v3Bytes) == 1)
            #expect(occurrences(of: "Answer 10: word10x0", in: v3Bytes) == 1)
            #expect(occurrences(of: "opaque-fixture-reasoning-10", in: v3Bytes) == 1)
            #expect(occurrences(of: "Ninth: read the last notes", in: v3Bytes) == 1)
            #expect(occurrences(of: "txt: line 9", in: v3Bytes) == 1)
        }
    }

    @Test("format 2 records left beside the format 3 snapshot that holds them (the writer died before removing them) are skipped")
    func staleFormat2Journal() async throws {
        try await withTemporaryFolder { folder in
            // given: the thread moved to format 3, then its old journal put back
            let threads = try format2Folder(in: folder)
            let oldJournal = try Data(contentsOf: journalFile(folder))
            let nine = ThreadFormatFixture.plain(9, question: "Ninth question")
            let stored = try await ChappieFileThreadStore(directory: threads)
                .appendTurn(nine.turn, transcriptItems: nine.transcriptItems, model: "gpt-5.5", contextUpdatedAt: nine.contextUpdatedAt,
                            to: id, expectedTurnCount: 8)
            try oldJournal.write(to: journalFile(folder))
            chmod(journalFile(folder).path, 0o600)

            // when
            let fresh = ChappieFileThreadStore(directory: threads)
            let loaded = try await fresh.thread(id: id)

            // then: the snapshot's thread, and the stale journal is gone
            #expect(loaded == stored)
            #expect(!FileManager.default.fileExists(atPath: journalFile(folder).path))
            #expect(await fresh.issues().isEmpty)
        }
    }

    @Test("an update of a format 2 thread (a rename) rewrites it as format 3, equal but for the version")
    func updateAfterFormat2() async throws {
        try await withTemporaryFolder { folder in
            let threads = try format2Folder(in: folder)
            let store = ChappieFileThreadStore(directory: threads)

            let renamed = try await store.update(id: id) { $0.title = "Renamed" }

            var expected = expectedFormat2Thread()
            expected.formatVersion = 3
            expected.title = "Renamed"
            expected.revision += 1
            #expect(renamed == expected)
            #expect(try await ChappieFileThreadStore(directory: threads).thread(id: id) == expected)
            #expect(!FileManager.default.fileExists(atPath: journalFile(folder).path))
        }
    }

    @Test("the fixture's writes stored in format 3 read back equal, from the journal and after folding into one snapshot")
    func format3RoundTrip() async throws {
        try await withTemporaryFolder { folder in
            // given: the same writes, by this SDK
            let threads = threadsFolder(in: folder)
            let store = ChappieFileThreadStore(directory: threads)
            let stored = try await ThreadFormatFixture.write(ThreadFormatFixture.writes, to: store)
            var expected = ThreadFormatFixture.expected(ThreadFormatFixture.writes)
            expected.formatVersion = 3
            #expect(stored == expected)

            // when / then: read from snapshot plus journal, then from one snapshot
            #expect(try await ChappieFileThreadStore(directory: threads).thread(id: id) == expected)
            let saved = try await store.save(stored)
            #expect(!FileManager.default.fileExists(atPath: journalFile(folder).path))
            #expect(try await ChappieFileThreadStore(directory: threads).thread(id: id) == saved)
            var resaved = expected
            resaved.revision += 1
            #expect(saved == resaved)
        }
    }
}
