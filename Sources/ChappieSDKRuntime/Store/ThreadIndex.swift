import Foundation

/// The file store's index: one entry per thread file, so listing needs no thread file read.
/// Each entry remembers the file's identity (size, inode, modification time) so a file
/// changed behind the index's back (a writer killed between its two renames) is noticed and
/// re-read.
struct ThreadIndex: Codable, Equatable {
    /// The index format this code writes.
    static let currentFormatVersion = 1

    /// An index entry.
    struct Entry: Codable, Equatable {
        var summary: ChappieThreadSummary
        var revision: Int
        var file: ThreadFileSystem.FileIdentity
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

    /// Bytes used by the indexed thread files.
    var bytesUsed: Int { entries.values.reduce(0) { $0 + $1.summary.byteCount } }

    /// The index stored in `data`, or nil when it is damaged or from a newer version.
    static func decode(_ data: Data) -> ThreadIndex? {
        guard let index = try? JSONDecoder().decode(ThreadIndex.self, from: data),
              index.formatVersion <= currentFormatVersion else { return nil }
        return index
    }

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
