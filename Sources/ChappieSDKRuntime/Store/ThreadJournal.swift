import ChappieSDK
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The append-only journal of one thread (DESIGN §5): `<uuid>.journal` beside the thread's
/// snapshot `<uuid>.json`, one JSON record per line (`\n`-terminated), each written and fsynced
/// by one append. A record holds what one write added to the thread — transcript items, turn
/// records, compactions — and the thread's small fields as they are after it, so saving a turn
/// costs what the turn adds, not the whole thread.
///
/// Lines are written in format 3 (``Line``: equal fields once, transcript items that the record's
/// turns hold as references to them, ``ThreadFormat``); format 2 lines, which a journal beside a
/// format 2 snapshot holds, are read too. Either way a record decodes on its own, without the
/// thread it applies to.
///
/// Records carry the thread revision they produce. Loading applies, on top of the snapshot, the
/// records whose revision follows the snapshot's one by one; older records (a journal that was
/// folded into a snapshot but not yet removed when the writer died) are skipped. An unreadable
/// last line is a torn append and is ignored (the next append cuts it off); an unreadable line
/// with readable ones after it is damage, reported by ``Parsed/damagedAt``.
enum ThreadJournal {
    /// What one write added to a thread, and its small fields after the write.
    struct Record: Codable, Equatable {
        /// The thread revision after this record.
        var revision: Int
        var title: String
        var model: String
        var updatedAt: Date
        var archived: Bool
        var contextModel: String
        var contextUpdatedAt: Date
        /// The new compaction summary when it changed (`.some(nil)` clears it); nil when unchanged.
        var compactedSummary: String??
        var transcript: [ChappieTranscriptItem]
        var turns: [ChappieThreadTurn]
        var compactions: [ChappieThreadCompaction]

        init(revision: Int, after thread: ChappieThread, compactedSummary: String??, transcript: [ChappieTranscriptItem],
             turns: [ChappieThreadTurn], compactions: [ChappieThreadCompaction]) {
            self.revision = revision
            title = thread.title
            model = thread.model
            updatedAt = thread.updatedAt
            archived = thread.archived
            contextModel = thread.context.model
            contextUpdatedAt = thread.context.updatedAt
            self.compactedSummary = compactedSummary
            self.transcript = transcript
            self.turns = turns
            self.compactions = compactions
        }

        /// Decodes a record of either format: format 3 (``ThreadFormat``; marked with `format`),
        /// or format 2, the shape ``encode(to:)`` writes. Throws `DecodingError`.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Wire.self)
            if container.contains(.format) {
                guard try container.decode(Int.self, forKey: .format) == ThreadFormat.version else {
                    throw DecodingError.dataCorruptedError(forKey: .format, in: container, debugDescription: "an unknown record format")
                }
                try self.init(format3: container)
            } else {
                try self.init(format2: container)
            }
        }

        /// A format 2 record from `container` (the shape of ``encode(to:)``).
        private init(format2 container: KeyedDecodingContainer<Wire>) throws {
            revision = try container.decode(Int.self, forKey: .revision)
            title = try container.decode(String.self, forKey: .title)
            model = try container.decode(String.self, forKey: .model)
            updatedAt = try container.decode(Date.self, forKey: .updatedAt)
            archived = try container.decode(Bool.self, forKey: .archived)
            contextModel = try container.decode(String.self, forKey: .contextModel)
            contextUpdatedAt = try container.decode(Date.self, forKey: .contextUpdatedAt)
            if container.contains(.compactedSummary) {
                compactedSummary = .some(try container.decodeIfPresent(String.self, forKey: .compactedSummary))
            } else {
                compactedSummary = nil
            }
            transcript = try container.decodeIfPresent([ChappieTranscriptItem].self, forKey: .transcript) ?? []
            turns = try container.decodeIfPresent([ChappieThreadTurn].self, forKey: .turns) ?? []
            compactions = try container.decodeIfPresent([ChappieThreadCompaction].self, forKey: .compactions) ?? []
        }

        /// A format 3 record from `container` (see ``Line``).
        private init(format3 container: KeyedDecodingContainer<Wire>) throws {
            revision = try container.decode(Int.self, forKey: .revision)
            title = try container.decode(String.self, forKey: .title)
            model = try container.decode(String.self, forKey: .model)
            archived = try container.decode(Bool.self, forKey: .archived)
            turns = try container.decodeIfPresent([ThreadFormat.Turn].self, forKey: .turns)?.map(\.turn) ?? []
            guard let updated = try container.decodeIfPresent(Date.self, forKey: .updatedAt) ?? turns.last?.endedAt else {
                throw DecodingError.keyNotFound(Wire.updatedAt, .init(codingPath: container.codingPath, debugDescription: "no update date"))
            }
            updatedAt = updated
            contextModel = try container.decodeIfPresent(String.self, forKey: .contextModel) ?? model
            contextUpdatedAt = try container.decodeIfPresent(Date.self, forKey: .contextUpdatedAt) ?? updatedAt
            if container.contains(.compactedSummary) {
                compactedSummary = .some(try container.decodeIfPresent(String.self, forKey: .compactedSummary))
            } else {
                compactedSummary = nil
            }
            let elements = try container.decodeIfPresent([ThreadFormat.TranscriptElement].self, forKey: .transcript) ?? []
            transcript = try ThreadFormat.transcript(elements, turns: turns, codingPath: container.codingPath)
            compactions = try container.decodeIfPresent([ChappieThreadCompaction].self, forKey: .compactions) ?? []
        }

        /// Encodes the record in the format 2 shape: every field, the transcript items whole. The
        /// redactor works on this shape; ``line(_:)`` writes format 3 (``Line``).
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Wire.self)
            try container.encode(revision, forKey: .revision)
            try container.encode(title, forKey: .title)
            try container.encode(model, forKey: .model)
            try container.encode(updatedAt, forKey: .updatedAt)
            try container.encode(archived, forKey: .archived)
            try container.encode(contextModel, forKey: .contextModel)
            try container.encode(contextUpdatedAt, forKey: .contextUpdatedAt)
            if case .some(let summary) = compactedSummary {
                if let summary { try container.encode(summary, forKey: .compactedSummary) } else { try container.encodeNil(forKey: .compactedSummary) }
            }
            if !transcript.isEmpty { try container.encode(transcript, forKey: .transcript) }
            if !turns.isEmpty { try container.encode(turns, forKey: .turns) }
            if !compactions.isEmpty { try container.encode(compactions, forKey: .compactions) }
        }

        /// Messages among the appended transcript items.
        var messageCount: Int { transcript.reduce(0) { $0 + ($1.message == nil ? 0 : 1) } }

        /// `thread` with this record applied.
        func apply(to thread: inout ChappieThread) {
            thread.revision = revision
            thread.title = title
            thread.model = model
            thread.updatedAt = updatedAt
            thread.archived = archived
            thread.context.model = contextModel
            thread.context.updatedAt = contextUpdatedAt
            if case .some(let summary) = compactedSummary { thread.context.compactedSummary = summary }
            if !transcript.isEmpty { thread.context.transcript.append(contentsOf: transcript) }
            if !turns.isEmpty { thread.turns.append(contentsOf: turns) }
            if !compactions.isEmpty { thread.compactions.append(contentsOf: compactions) }
        }

        fileprivate enum Wire: String, CodingKey {
            case format, revision, title, model, updatedAt, archived, contextModel, contextUpdatedAt, compactedSummary, transcript, turns,
                 compactions
        }
    }

    /// A record as a format 3 journal line writes it: marked `"format":3`; the update date only
    /// when it is not the end of the record's last turn, the transcript's model and update date
    /// only when they differ from the thread's; transcript items the record's turns hold as
    /// references to them (``ThreadFormat``).
    struct Line: Encodable {
        var record: Record

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Record.Wire.self)
            try container.encode(ThreadFormat.version, forKey: .format)
            try container.encode(record.revision, forKey: .revision)
            try container.encode(record.title, forKey: .title)
            try container.encode(record.model, forKey: .model)
            if record.updatedAt != record.turns.last?.endedAt { try container.encode(record.updatedAt, forKey: .updatedAt) }
            try container.encode(record.archived, forKey: .archived)
            if record.contextModel != record.model { try container.encode(record.contextModel, forKey: .contextModel) }
            if record.contextUpdatedAt != record.updatedAt { try container.encode(record.contextUpdatedAt, forKey: .contextUpdatedAt) }
            if case .some(let summary) = record.compactedSummary {
                if let summary {
                    try container.encode(summary, forKey: .compactedSummary)
                } else {
                    try container.encodeNil(forKey: .compactedSummary)
                }
            }
            if !record.transcript.isEmpty {
                var transcript = container.nestedUnkeyedContainer(forKey: .transcript)
                try ThreadFormat.encode(record.transcript, referring: record.turns, into: &transcript)
            }
            if !record.turns.isEmpty { try container.encode(record.turns.map(ThreadFormat.Turn.init), forKey: .turns) }
            if !record.compactions.isEmpty { try container.encode(record.compactions, forKey: .compactions) }
        }
    }

    /// The record that turns `old` into `new` by appending, or nil when `new` is not `old` plus
    /// appended items (something was removed, reordered or rewritten, or an identifier changed):
    /// such a change needs a new snapshot. Compares the old prefix element by element, which is
    /// cheap when the arrays share storage, as they do when `new` was made by appending to `old`.
    static func record(from old: ChappieThread, to new: ChappieThread, revision: Int) -> Record? {
        guard new.id == old.id, new.createdAt == old.createdAt,
              new.context.sessionID == old.context.sessionID, new.context.threadID == old.context.threadID,
              new.context.createdAt == old.context.createdAt,
              let transcript = appended(old.context.transcript, new.context.transcript),
              let turns = appended(old.turns, new.turns),
              let compactions = appended(old.compactions, new.compactions) else { return nil }
        let summary: String?? = new.context.compactedSummary == old.context.compactedSummary ? nil : .some(new.context.compactedSummary)
        return Record(revision: revision, after: new, compactedSummary: summary, transcript: transcript, turns: turns,
                      compactions: compactions)
    }

    /// The elements `new` adds after `old`, or nil when `new` does not start with `old`.
    ///
    /// Appending to a copy of a thread copies its arrays element by element, so the old prefix
    /// of `new` is usually bit for bit the same memory as `old` (the same string and array
    /// references): one `memcmp` settles that, and only elements whose bits differ are compared
    /// with `==`.
    private static func appended<Element: Equatable>(_ old: [Element], _ new: [Element]) -> [Element]? {
        guard new.count >= old.count else { return nil }
        let identical = old.withUnsafeBytes { oldBytes in
            new.withUnsafeBytes { newBytes in
                oldBytes.count == 0 || memcmp(oldBytes.baseAddress!, newBytes.baseAddress!, oldBytes.count) == 0
            }
        }
        if !identical {
            for index in old.indices where old[index] != new[index] { return nil }
        }
        return Array(new[old.count...])
    }

    /// `record` as one format 3 journal line (``Line``: JSON without raw newlines, then `\n`).
    /// Throws ``ChappieThreadStoreError/io(_:)`` if encoding fails.
    static func line(_ record: Record) throws -> Data {
        do {
            var data = try JSONEncoder().encode(Line(record: record))
            data.append(Wire.newline)
            return data
        } catch {
            throw ChappieThreadStoreError.io("cannot encode a journal record")
        }
    }

    /// Records read from journal bytes.
    struct Parsed {
        /// The records to apply, in order (revisions `base + 1`, `base + 2`, …).
        var records: [Record] = []
        /// Bytes from the start of the parsed data up to the end of the last good line (stale
        /// records included): where the next append goes.
        var validLength = 0
        /// Whether every line read was a record older than the base revision.
        var onlyStale = true
        /// The byte offset of an unreadable line that readable lines follow (damage, not a torn
        /// append); nil when the journal is sound.
        var damagedAt: Int?
    }

    /// Parses `data` (a journal, or its part after a known-good prefix) on top of a thread at
    /// revision `base`.
    static func parse(_ data: Data, base: Int) -> Parsed {
        var parsed = Parsed()
        var expected = base + 1
        var start = data.startIndex
        let decoder = JSONDecoder()
        while start < data.endIndex {
            guard let newline = data[start...].firstIndex(of: Wire.newline) else { break }  // torn: no line end
            let lineRange = start..<newline
            let record = try? decoder.decode(Record.self, from: data[lineRange])
            let stale = record.map { $0.revision < expected && parsed.records.isEmpty } ?? false
            guard let record, stale || record.revision == expected else {
                // An unreadable or out-of-order line: a torn last append, or damage when more lines follow.
                if data[(newline + 1)...].contains(where: { $0 != Wire.newline && $0 != 0 }) {
                    parsed.damagedAt = start - data.startIndex
                }
                break
            }
            if !stale {
                parsed.records.append(record)
                parsed.onlyStale = false
                expected += 1
            }
            start = newline + 1
            parsed.validLength = start - data.startIndex
        }
        return parsed
    }

    private enum Wire {
        static let newline = UInt8(ascii: "\n")
    }
}
