import ChappieSDK
import Foundation

/// How threads become stored bytes and back, and how a redactor is applied to a whole thread.
enum ThreadCoding {
    /// The outcome of reading stored bytes as a thread.
    enum Decoded {
        case thread(ChappieThread)
        case corrupt(String)
        case unsupported(Int)
    }

    /// The stored JSON of `thread`, in format 3 (``ThreadFormat/Snapshot``). Throws
    /// ``ChappieThreadStoreError/io(_:)`` if encoding fails.
    static func encode(_ thread: ChappieThread) throws -> Data {
        do {
            return try JSONEncoder().encode(ThreadFormat.Snapshot(thread))
        } catch {
            throw ChappieThreadStoreError.io("cannot encode thread \(thread.id.uuidString.lowercased())")
        }
    }

    /// Reads `data` as the thread `expectedID`, in format 3 or an earlier one (formats 1 and 2 are
    /// the shape of ``ChappieThread``'s own coding): corrupt when it is not JSON of a thread, or is
    /// another thread's data (a foreign or misplaced file); unsupported when it has a newer
    /// format version.
    static func decode(_ data: Data, expectedID: UUID) -> Decoded {
        // One parse: the version is read first, and the rest in the shape it names.
        guard let stored = try? JSONDecoder().decode(Stored.self, from: data) else {
            return .corrupt(data.isEmpty ? "the file is empty" : "not a Chappie thread (\(data.count) bytes)")
        }
        guard let thread = stored.thread else { return .unsupported(stored.version) }
        guard thread.id == expectedID else { return .corrupt("the file holds another thread's data") }
        guard (0...ThreadIndex.maximumRevision).contains(thread.revision) else { return .corrupt("the thread's revision is impossible") }
        return .thread(thread)
    }

    /// `thread` with `redactor` applied to every string value except identifiers and enumeration
    /// values (see `structuralKeys`); numbers and dates are kept. Throws
    /// ``ChappieThreadStoreError/io(_:)`` when the redacted data no longer decodes.
    static func redacted(_ thread: ChappieThread, with redactor: ChappieThreadRedactor) throws -> ChappieThread {
        var result = try redacted(thread as ChappieThread?, with: redactor) ?? thread
        result.id = thread.id
        return result
    }

    /// A journal record with `redactor` applied the same way (see ``redacted(_:with:)``).
    /// Throws ``ChappieThreadStoreError/io(_:)`` when the redacted data no longer decodes.
    static func redacted(_ record: ThreadJournal.Record, with redactor: ChappieThreadRedactor) throws -> ThreadJournal.Record {
        try redacted(record as ThreadJournal.Record?, with: redactor) ?? record
    }

    /// `value` after redaction, or nil when the redactor changed nothing.
    private static func redacted<Value: Codable>(_ value: Value?, with redactor: ChappieThreadRedactor) throws -> Value? {
        guard let value, !redactor.isIdentity else { return nil }
        do {
            let tree = try ChappieJSONValue(jsonData: try JSONEncoder().encode(value))
            var changed = false
            let redacted = redact(tree, redactor, changed: &changed)
            // Nearly every write has nothing to redact: keep the value as it is.
            guard changed else { return nil }
            return try JSONDecoder().decode(Value.self, from: JSONEncoder().encode(redacted))
        } catch {
            throw ChappieThreadStoreError.io("the redactor produced data that is not a thread")
        }
    }

    private static func redact(_ value: ChappieJSONValue, _ redactor: ChappieThreadRedactor, changed: inout Bool) -> ChappieJSONValue {
        switch value {
        case .string(let text):
            let clean = redactor.redact(text)
            if clean != text { changed = true }
            return .string(clean)
        case .array(let values):
            return .array(values.map { redact($0, redactor, changed: &changed) })
        case .object(let members):
            var result: [String: ChappieJSONValue] = [:]
            result.reserveCapacity(members.count)
            for (key, member) in members {
                result[key] = structuralKeys.contains(key) ? member : redact(member, redactor, changed: &changed)
            }
            return .object(result)
        case .null, .bool, .integer, .number:
            return value
        }
    }

    /// Members that hold identifiers or enumeration values rather than text: never redacted, so
    /// a redactor cannot make a thread undecodable or change what it refers to.
    private static let structuralKeys: Set<String> = [
        "id", "formatVersion", "sessionID", "threadID", "responseID", "callID", "call_id",
        "role", "status", "kind", "decision", "type",
        // Opaque server data (encrypted reasoning and compaction items): altering it would make
        // the transcript unreplayable, and it is not text a person wrote.
        "encrypted_content",
    ]

    /// A stored thread of any format: its version, and the thread unless the version is newer
    /// than ``ChappieThread/currentFormatVersion`` (then only the header is read).
    private struct Stored: Decodable {
        var version: Int
        var thread: ChappieThread?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            version = try container.decodeIfPresent(Int.self, forKey: .formatVersion) ?? 0
            if version > ChappieThread.currentFormatVersion {
                _ = try container.decode(UUID.self, forKey: .id)
                thread = nil
            } else if version == ThreadFormat.version {
                thread = try ThreadFormat.Snapshot(from: decoder).thread
            } else {
                thread = try ChappieThread(from: decoder)
            }
        }

        private enum Key: String, CodingKey { case formatVersion, id }
    }
}
