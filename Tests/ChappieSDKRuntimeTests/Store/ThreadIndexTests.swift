import Foundation
import Testing
@testable import ChappieSDKRuntime

@Suite("Thread index encoding")
struct ThreadIndexTests {
    private func entry(_ title: String, revision: Int = 1) -> ThreadIndex.Entry {
        let summary = ChappieThreadSummary(ThreadFixtures.small(title: title), byteCount: 100 + title.utf8.count)
        return ThreadIndex.Entry(summary: summary, revision: revision,
                                 file: ThreadFileSystem.FileIdentity(bytes: summary.byteCount, inode: UInt64(revision), modifiedNanoseconds: 7))
    }

    @Test("reused entry bytes give the same index as a full encode, before and after one entry changes")
    func reuseMatchesFullEncode() throws {
        var index = ThreadIndex()
        for title in ["one", "two", "three"] {
            let item = entry(title)
            index.entries[item.summary.id] = item
        }
        var cache: [UUID: ThreadIndex.EncodedEntry] = [:]
        #expect(ThreadIndex.decode(try index.encoded(reusing: &cache)) == index)
        #expect(cache.count == 3)
        // change one entry, drop another: the cache must not resurrect or keep stale bytes
        let changed = try #require(index.entries.values.first { $0.summary.title == "two" })
        var renamed = changed
        renamed.summary.title = "two, renamed"
        renamed.summary.byteCount += 9
        renamed.file.bytes += 9
        renamed.revision = 2
        index.entries[changed.summary.id] = renamed
        let dropped = try #require(index.entries.values.first { $0.summary.title == "three" })
        index.entries[dropped.summary.id] = nil
        let data = try index.encoded(reusing: &cache)
        #expect(ThreadIndex.decode(data) == index)
        #expect(try JSONDecoder().decode(ThreadIndex.self, from: JSONEncoder().encode(index)) == ThreadIndex.decode(data))
        #expect(cache.count == 2)
        #expect(String(decoding: data, as: UTF8.self).contains("two, renamed"))
    }

    @Test("an empty index encodes as an empty list")
    func empty() throws {
        var cache: [UUID: ThreadIndex.EncodedEntry] = [:]
        let data = try ThreadIndex().encoded(reusing: &cache)
        #expect(String(decoding: data, as: UTF8.self) == #"{"formatVersion":1,"threads":[]}"#)
        #expect(ThreadIndex.decode(data) == ThreadIndex())
    }
}
