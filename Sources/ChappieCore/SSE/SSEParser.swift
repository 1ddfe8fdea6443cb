#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A byte-level server-sent events parser (WHATWG HTML §9.2.6, "Interpreting an event stream").
///
/// Stage one splits bytes into lines on CR, LF or CRLF, remembering a CR at the end of a chunk so
/// a CRLF split across chunks counts once; stage two turns lines into events. UTF-8 is decoded only
/// on whole lines, so a character split across chunks is never damaged. A leading BOM is dropped;
/// comment lines (`:`…) count as activity but make no event; `data:` with or without a space;
/// unknown fields are ignored; `retry` must be all digits. ``finish()`` dispatches a last event
/// that has no blank line after it. Pure, synchronous, no I/O.
///
/// Cost is linear in the input: a chunk is scanned in place for line ends, a line that lies
/// inside one chunk is read where it is (only a line split across chunks is copied, once), and an
/// event's data is gathered into one reused byte buffer and decoded once when the event is
/// dispatched. An event type equal to the previous one reuses its string.
struct SSEParser: Sendable {
    /// Largest line accepted, in bytes; a longer one fails the stream.
    let maximumLineBytes: Int
    /// Largest event data accepted, in bytes.
    let maximumEventBytes: Int

    /// The start of a line that continues in the next chunk.
    private var partialLine: [UInt8] = []
    private var pendingCR = false
    private var sawFirstLine = false
    /// The `event:` field of the event being built; nil when absent.
    private var eventType: String?
    /// The previous event type, reused when the next one has the same bytes.
    private var lastEventType = ""
    private var lastEventTypeBytes: [UInt8] = []
    /// The `data:` lines of the event being built, joined with LF.
    private var data: [UInt8] = []
    private var hasData = false
    private var lastEventID: String?
    private var retry: Int?
    /// Number of comment lines seen (keep-alives), for idle accounting and tests.
    private(set) var commentCount = 0

    /// Why parsing stopped.
    enum Failure: Error, Equatable {
        /// A line or an event grew past its cap.
        case tooLarge(Int)
    }

    init(maximumLineBytes: Int = 16 << 20, maximumEventBytes: Int = 32 << 20) {
        self.maximumLineBytes = maximumLineBytes
        self.maximumEventBytes = maximumEventBytes
    }

    /// Feeds bytes and returns the events they complete. Throws ``Failure`` past a cap.
    mutating func feed<Bytes: Sequence>(_ bytes: Bytes) throws -> [SSEEvent] where Bytes.Element == UInt8 {
        var events: [SSEEvent] = []
        let handled: Void? = try bytes.withContiguousStorageIfAvailable { buffer in
            try feed(UnsafeRawBufferPointer(buffer), into: &events)
        }
        if handled == nil {
            let copy = Array(bytes)
            try copy.withUnsafeBytes { try feed($0, into: &events) }
        }
        return events
    }

    /// Ends the stream: a pending line and a pending event are dispatched.
    mutating func finish() throws -> [SSEEvent] {
        var events: [SSEEvent] = []
        if !partialLine.isEmpty {
            let line = partialLine
            partialLine.removeAll()
            try line.withUnsafeBytes { try endLine($0, into: &events) }
        }
        if let event = dispatch() { events.append(event) }
        pendingCR = false
        return events
    }

    private mutating func feed(_ chunk: UnsafeRawBufferPointer, into events: inout [SSEEvent]) throws {
        var start = 0
        let count = chunk.count
        if pendingCR, count > 0 {
            pendingCR = false
            if chunk[0] == Wire.lf { start = 1 }
        }
        var index = start
        while index < count {
            let byte = chunk[index]
            guard byte == Wire.lf || byte == Wire.cr else {
                index += 1
                continue
            }
            let line = UnsafeRawBufferPointer(rebasing: chunk[start..<index])
            if partialLine.isEmpty {
                try endLine(line, into: &events)
            } else {
                try appendPartial(line)
                let joined = partialLine
                partialLine.removeAll(keepingCapacity: true)
                try joined.withUnsafeBytes { try endLine($0, into: &events) }
            }
            index += 1
            if byte == Wire.cr {
                if index == count {
                    pendingCR = true
                } else if chunk[index] == Wire.lf {
                    index += 1
                }
            }
            start = index
        }
        if start < count { try appendPartial(UnsafeRawBufferPointer(rebasing: chunk[start..<count])) }
    }

    private mutating func appendPartial(_ bytes: UnsafeRawBufferPointer) throws {
        guard partialLine.count + bytes.count <= maximumLineBytes else { throw Failure.tooLarge(maximumLineBytes) }
        partialLine.append(contentsOf: bytes)
    }

    private mutating func endLine(_ line: UnsafeRawBufferPointer, into events: inout [SSEEvent]) throws {
        guard line.count <= maximumLineBytes else { throw Failure.tooLarge(maximumLineBytes) }
        var bytes = line
        if !sawFirstLine {
            sawFirstLine = true
            if bytes.starts(with: Wire.bom) { bytes = UnsafeRawBufferPointer(rebasing: bytes[3...]) }
        }
        if bytes.isEmpty {
            if let event = dispatch() { events.append(event) }
            return
        }
        if bytes[0] == Wire.colon {
            commentCount += 1
            return
        }
        var field = bytes
        var value = UnsafeRawBufferPointer(start: nil, count: 0)
        if let colon = bytes.firstIndex(of: Wire.colon) {
            field = UnsafeRawBufferPointer(rebasing: bytes[..<colon])
            var valueStart = colon + 1
            if valueStart < bytes.count, bytes[valueStart] == Wire.space { valueStart += 1 }
            value = UnsafeRawBufferPointer(rebasing: bytes[valueStart...])
        }
        switch Self.fieldName(field) {
        case .data:
            let added = value.count + (hasData ? 1 : 0)
            guard data.count + added <= maximumEventBytes else { throw Failure.tooLarge(maximumEventBytes) }
            if hasData { data.append(Wire.lf) }
            data.append(contentsOf: value)
            hasData = true
        case .event:
            eventType = Self.equal(value, lastEventTypeBytes) ? lastEventType : String(decoding: value, as: UTF8.self)
        case .id:
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case .retry:
            if !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }) {
                retry = Int(String(decoding: value, as: UTF8.self))
            }
        case nil:
            break
        }
    }

    /// The fields the spec knows (§9.2.6 "Process the field").
    private enum Field { case data, event, id, retry }

    /// Which field `name` is, by its bytes; nil for any other name (ignored, per the spec).
    private static func fieldName(_ name: UnsafeRawBufferPointer) -> Field? {
        switch name.count {
        case 2 where name[0] == 0x69 && name[1] == 0x64: return .id  // "id"
        case 4 where name[0] == 0x64 && name[1] == 0x61 && name[2] == 0x74 && name[3] == 0x61: return .data  // "data"
        case 5 where name[0] == 0x65 && equal(name, Wire.event): return .event
        case 5 where name[0] == 0x72 && equal(name, Wire.retry): return .retry
        default: return nil
        }
    }

    /// Byte equality of a line slice and a byte array (memcmp).
    private static func equal(_ bytes: UnsafeRawBufferPointer, _ other: [UInt8]) -> Bool {
        guard bytes.count == other.count else { return false }
        guard let base = bytes.baseAddress else { return other.isEmpty }
        return other.withUnsafeBytes { memcmp(base, $0.baseAddress!, other.count) == 0 }
    }

    private mutating func dispatch() -> SSEEvent? {
        defer {
            eventType = nil
            data.removeAll(keepingCapacity: data.capacity <= Wire.keptDataCapacity)
            hasData = false
            retry = nil
        }
        guard hasData else { return nil }
        let type = eventType.flatMap { $0.isEmpty ? nil : $0 } ?? Wire.message
        if type != lastEventType {
            lastEventType = type
            lastEventTypeBytes = Array(type.utf8)
        }
        return SSEEvent(type: type, data: String(decoding: data, as: UTF8.self), id: lastEventID, retry: retry)
    }

    private enum Wire {
        static let cr: UInt8 = 0x0D
        static let lf: UInt8 = 0x0A
        static let colon: UInt8 = 0x3A
        static let space: UInt8 = 0x20
        static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        static let event = Array("event".utf8)
        static let retry = Array("retry".utf8)
        static let message = "message"
        /// Data buffer capacity kept between events; a buffer grown past it by one huge event is freed.
        static let keptDataCapacity = 64 << 10
    }
}
