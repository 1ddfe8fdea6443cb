import Foundation

/// The file store's index: one entry per thread, so listing needs no thread file read. Each
/// entry remembers the identity (size, inode, modification time) of the thread's snapshot and
/// journal, so a file changed behind the index's back (a writer killed between writing a thread
/// and the index) is noticed and re-read.
///
/// The index is a cache: every entry is checked against the files it describes, and one that
/// does not add up (a byte count that is not the files' sizes, an impossible revision — a
/// tampered index) is dropped and rebuilt from the thread's files.
struct ThreadIndex: Codable, Equatable {
    /// The index format this code writes. (Version 1 indexes gain the optional `journal`
    /// identity; code that predates journals ignores it.)
    static let currentFormatVersion = 1

    /// Largest revision accepted from disk; a larger one is treated as damage, so counting on
    /// from it can never overflow.
    static let maximumRevision = 1 << 52

    /// An index entry.
    struct Entry: Codable, Equatable {
        var summary: ChappieThreadSummary
        var revision: Int
        /// The snapshot file (`<uuid>.json`).
        var file: ThreadFileSystem.FileIdentity
        /// The journal file (`<uuid>.journal`), when the thread has one.
        var journal: ThreadFileSystem.FileIdentity?
        /// Bytes of the journal holding the whole records this entry counts (nil: none).
        var journalLength: Int?

        /// Whether the entry's numbers are consistent with the files it describes: the byte
        /// count is the snapshot's size plus the journal's, and the revision is plausible.
        var isConsistent: Bool {
            let journalBytes = journal?.bytes ?? 0
            guard file.bytes >= 0, journalBytes >= 0, (0...journalBytes).contains(journalLength ?? 0),
                  (0...ThreadIndex.maximumRevision).contains(revision) else { return false }
            let (total, overflow) = file.bytes.addingReportingOverflow(journalBytes)
            return !overflow && summary.byteCount == total && summary.messageCount >= 0 && summary.turnCount >= 0
        }

        /// Whether `self` differs from `stored` only by journal records appended since (same
        /// snapshot, a later revision): readers bring such an entry up to date from the journal
        /// themselves, so the index file need not be rewritten for it.
        func onlyAppended(since stored: Entry) -> Bool {
            file == stored.file && journal != nil && revision > stored.revision && summary.id == stored.summary.id
                && summary.createdAt == stored.summary.createdAt
        }

        /// The entry after the journal `records` were appended, read up to `length` bytes of a
        /// journal that now has `identity`.
        func applying(_ records: [ThreadJournal.Record], journal identity: ThreadFileSystem.FileIdentity, length: Int) -> Entry {
            var next = self
            for record in records {
                next.revision = record.revision
                next.summary.title = record.title
                next.summary.model = record.model
                next.summary.updatedAt = record.updatedAt
                next.summary.archived = record.archived
                next.summary.messageCount += record.messageCount
                next.summary.turnCount += record.turns.count
            }
            next.journal = identity
            next.journalLength = length
            next.summary.byteCount = file.bytes + identity.bytes
            return next
        }
    }

    /// Whether this index must be written out, compared with the `stored` one: true unless
    /// every difference is an entry that only gained journal records (see
    /// ``Entry/onlyAppended(since:)``). Skipping those writes keeps a turn's cost to its journal
    /// record.
    func needsWriting(comparedTo stored: ThreadIndex) -> Bool {
        guard entries.count == stored.entries.count else { return true }
        for (id, entry) in entries {
            guard let old = stored.entries[id] else { return true }
            if entry != old && !entry.onlyAppended(since: old) { return true }
        }
        return false
    }

    var formatVersion = currentFormatVersion
    var entries: [UUID: Entry] = [:]

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        formatVersion = try container.decode(Int.self, forKey: .formatVersion)
        let list = try container.decode([Entry].self, forKey: .threads)
        entries = Dictionary(list.map { ($0.summary.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(formatVersion, forKey: .formatVersion)
        try container.encode(Array(entries.values), forKey: .threads)
    }

    private enum CodingKeys: String, CodingKey {
        case formatVersion, threads
    }

    static func == (lhs: ThreadIndex, rhs: ThreadIndex) -> Bool {
        lhs.formatVersion == rhs.formatVersion && lhs.entries == rhs.entries
    }

    /// Bytes used by the indexed thread files (`Int.max` if the sum would overflow, which
    /// consistent entries never make it).
    var bytesUsed: Int {
        var total = 0
        for entry in entries.values {
            let (sum, overflow) = total.addingReportingOverflow(max(0, entry.summary.byteCount))
            if overflow { return Int.max }
            total = sum
        }
        return total
    }

    /// The index stored in `data`, or nil when it is damaged or from a newer version.
    /// Inconsistent entries are left out (``dropped`` counts them), so the store re-reads
    /// those threads.
    static func decode(_ data: Data) -> ThreadIndex? {
        guard var index = try? JSONDecoder().decode(ThreadIndex.self, from: data),
              index.formatVersion <= currentFormatVersion else { return nil }
        let isSound: (Dictionary<UUID, Entry>.Element) -> Bool = { $0.value.isConsistent && $0.key == $0.value.summary.id }
        guard !index.entries.allSatisfy(isSound) else { return index }
        let consistent = index.entries.filter(isSound)
        index.dropped = index.entries.count - consistent.count
        index.entries = consistent
        return index
    }

    /// Entries ``decode(_:)`` left out as inconsistent (not stored).
    var dropped = 0

    /// The stored form (the same JSON as `JSONEncoder().encode(self)`). Entries unchanged since
    /// the last call reuse their bytes from `cache`, so saving one thread among many re-encodes
    /// one entry instead of all of them. Throws ``ChappieThreadStoreError/io(_:)``.
    func encoded(reusing cache: inout [UUID: EncodedEntry]) throws -> Data {
        let encoder = JSONEncoder()
        var fresh: [UUID: EncodedEntry] = [:]
        fresh.reserveCapacity(entries.count)
        var data = Data(#"{"formatVersion":\#(formatVersion),"threads":["#.utf8)
        for (id, entry) in entries {
            let bytes: Data
            if let cached = cache[id], cached.entry == entry {
                bytes = cached.bytes
            } else {
                do { bytes = try encoder.encode(entry) } catch { throw ChappieThreadStoreError.io("cannot encode the thread index") }
            }
            fresh[id] = EncodedEntry(entry: entry, bytes: bytes)
            if data.last != UInt8(ascii: "[") { data.append(UInt8(ascii: ",")) }
            data.append(bytes)
        }
        data.append(contentsOf: Array("]}".utf8))
        cache = fresh
        return data
    }

    /// An entry with its encoded bytes, kept between saves by ``encoded(reusing:)``.
    struct EncodedEntry {
        var entry: Entry
        var bytes: Data
    }
}
