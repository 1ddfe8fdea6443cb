/// A byte-level server-sent events parser (WHATWG HTML §9.2.6, "Interpreting an event stream").
///
/// Stage one splits bytes into lines on CR, LF or CRLF, remembering a CR at the end of a chunk so
/// a CRLF split across chunks counts once; stage two turns lines into events. UTF-8 is decoded only
/// on whole lines, so a character split across chunks is never damaged. A leading BOM is dropped;
/// comment lines (`:`…) count as activity but make no event; `data:` with or without a space;
/// unknown fields are ignored; `retry` must be all digits. ``finish()`` dispatches a last event
/// that has no blank line after it. Pure, synchronous, no I/O.
struct SSEParser: Sendable {
    /// Largest line accepted, in bytes; a longer one fails the stream.
    let maximumLineBytes: Int
    /// Largest event data accepted, in bytes.
    let maximumEventBytes: Int

    private var line: [UInt8] = []
    private var pendingCR = false
    private var sawFirstLine = false
    private var eventType = ""
    private var data: [String] = []
    private var dataBytes = 0
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
        for byte in bytes {
            if pendingCR {
                pendingCR = false
                if byte == Wire.lf { continue }
            }
            switch byte {
            case Wire.cr:
                pendingCR = true
                try endLine(into: &events)
            case Wire.lf:
                try endLine(into: &events)
            default:
                line.append(byte)
                if line.count > maximumLineBytes { throw Failure.tooLarge(maximumLineBytes) }
            }
        }
        return events
    }

    /// Ends the stream: a pending line and a pending event are dispatched.
    mutating func finish() throws -> [SSEEvent] {
        var events: [SSEEvent] = []
        if !line.isEmpty { try endLine(into: &events) }
        if let event = dispatch() { events.append(event) }
        pendingCR = false
        return events
    }

    private mutating func endLine(into events: inout [SSEEvent]) throws {
        var bytes = line[...]
        line.removeAll(keepingCapacity: true)
        if !sawFirstLine {
            sawFirstLine = true
            if bytes.starts(with: Wire.bom) { bytes = bytes.dropFirst(3) }
        }
        if bytes.isEmpty {
            if let event = dispatch() { events.append(event) }
            return
        }
        if bytes.first == Wire.colon {
            commentCount += 1
            return
        }
        let field: String
        var value: Substring = ""
        if let colon = bytes.firstIndex(of: Wire.colon) {
            field = String(decoding: bytes[..<colon], as: UTF8.self)
            var valueBytes = bytes[(colon + 1)...]
            if valueBytes.first == Wire.space { valueBytes = valueBytes.dropFirst() }
            value = Substring(String(decoding: valueBytes, as: UTF8.self))
        } else {
            field = String(decoding: bytes, as: UTF8.self)
        }
        switch field {
        case "event": eventType = String(value)
        case "data":
            dataBytes += value.utf8.count + 1
            if dataBytes > maximumEventBytes { throw Failure.tooLarge(maximumEventBytes) }
            data.append(String(value))
        case "id" where !value.contains("\0"): lastEventID = String(value)
        case "retry" where !value.isEmpty && value.utf8.allSatisfy({ (0x30...0x39).contains($0) }): retry = Int(value)
        default: break
        }
    }

    private mutating func dispatch() -> SSEEvent? {
        defer {
            eventType = ""
            data.removeAll()
            dataBytes = 0
            retry = nil
        }
        guard !data.isEmpty else { return nil }
        return SSEEvent(type: eventType.isEmpty ? "message" : eventType, data: data.joined(separator: "\n"), id: lastEventID, retry: retry)
    }

    private enum Wire {
        static let cr: UInt8 = 0x0D
        static let lf: UInt8 = 0x0A
        static let colon: UInt8 = 0x3A
        static let space: UInt8 = 0x20
        static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
    }
}
