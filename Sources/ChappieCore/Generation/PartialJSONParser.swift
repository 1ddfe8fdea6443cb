/// An incremental JSON parser (RFC 8259) for a reply that streams in as text deltas: each byte is
/// read once, state is kept between ``feed(_:)`` calls, and ``snapshot()`` costs the nesting
/// depth, not the text so far, so a reply of n bytes costs O(n) however many deltas it comes in.
///
/// Finished values are built once, when they close; the open containers keep their members in
/// persistent lists (``PartialList``) that a snapshot shares without copying, and an open string
/// keeps its text as one chunk per delta. A snapshot is made into a JSON value only when asked
/// (``ChappiePartialGeneration/json``).
struct PartialJSONParser: Sendable {
    /// Whether the text so far is a JSON prefix, a whole value, or broken.
    enum Status: Sendable, Equatable {
        /// A prefix of a JSON value: more text may complete it.
        case incomplete
        /// One whole value (trailing whitespace allowed).
        case complete
        /// Not JSON: what went wrong at which byte offset.
        case invalid(String)
    }

    private enum Mode: Sendable {
        case value, valueOrEnd, keyOrEnd, key, colon, commaOrEnd, end
    }

    private enum Escape: Sendable {
        case none, backslash, unicode(digits: Int, value: UInt32)
    }

    private var frames: [PartialFrame] = []
    private var mode = Mode.value
    private var failure: String?
    private var root: ChappieJSONValue?
    // The open string: its bytes since the last delta, earlier deltas' text, key or value.
    private var inString = false
    private var stringIsKey = false
    private var escape = Escape.none
    private var highSurrogate: UInt32?
    private var buffer: [UInt8] = []
    private var chunks: PartialList<String>?
    // The open number's text, or the open literal (`true`, `false`, `null`) and how much matched.
    private var number: [UInt8]?
    private var literal: (text: [UInt8], matched: Int, value: ChappieJSONValue)?

    /// Bytes read so far (each once; tests check the parser never reads a byte twice).
    private(set) var bytesRead = 0

    /// The parser's verdict on the text so far.
    var status: Status {
        if let failure { return .invalid(failure) }
        if mode == .end { return .complete }
        if frames.isEmpty, number != nil { return .complete }
        return .incomplete
    }

    /// Reads one more delta of the reply.
    mutating func feed(_ text: String) {
        guard failure == nil else { return }
        for byte in text.utf8 {
            bytesRead += 1
            read(byte)
            if failure != nil { return }
        }
        if inString, !stringIsKey, !buffer.isEmpty {
            chunks = PartialList(String(decoding: buffer, as: UTF8.self), after: chunks)
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// The completed prefix seen so far; O(depth).
    func snapshot() -> ChappiePartialGeneration {
        var open: ChappieJSONValue.PartialScalar = .none
        if let root {
            open = .value(root)
        } else if inString, !stringIsKey {
            open = .string(chunks)
        } else if let number, let value = Self.number(number) {
            open = .value(value)
        }
        return ChappiePartialGeneration(frames: frames, open: open, isComplete: status == .complete)
    }

    /// The whole value, once ``status`` is complete (a number at the root ends here).
    mutating func finish() -> ChappieJSONValue? {
        if let number, frames.isEmpty, root == nil {
            guard let value = Self.number(number) else { return nil }
            self.number = nil
            root = value
            mode = .end
        }
        return root
    }

    private mutating func read(_ byte: UInt8) {
        if inString { return readString(byte) }
        if number != nil {
            if Self.isNumberByte(byte) { number?.append(byte); return }
            completeNumber()
            if failure != nil { return }
        }
        if let open = literal {
            guard byte == open.text[open.matched] else { return fail("a literal is misspelled") }
            if open.matched + 1 == open.text.count {
                literal = nil
                complete(open.value)
            } else {
                literal?.matched += 1
            }
            return
        }
        if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { return }
        switch mode {
        case .value, .valueOrEnd:
            if mode == .valueOrEnd, byte == UInt8(ascii: "]") { return close(.array) }
            startValue(byte)
        case .keyOrEnd:
            if byte == UInt8(ascii: "}") { return close(.object) }
            startKey(byte)
        case .key:
            startKey(byte)
        case .colon:
            guard byte == UInt8(ascii: ":") else { return fail("expected ':'") }
            mode = .value
        case .commaOrEnd:
            guard let top = frames.last else { return fail("unexpected text after the value") }
            switch byte {
            case UInt8(ascii: ","): mode = top.kind == .object ? .key : .value
            case UInt8(ascii: "}") where top.kind == .object: close(.object)
            case UInt8(ascii: "]") where top.kind == .array: close(.array)
            default: fail("expected ',' or the end of the container")
            }
        case .end:
            fail("unexpected text after the value")
        }
    }

    private mutating func startValue(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "{"):
            frames.append(PartialFrame(kind: .object))
            mode = .keyOrEnd
        case UInt8(ascii: "["):
            frames.append(PartialFrame(kind: .array))
            mode = .valueOrEnd
        case UInt8(ascii: "\""):
            beginString(isKey: false)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            number = [byte]
        case UInt8(ascii: "t"): literal = (Array("true".utf8), 1, .bool(true))
        case UInt8(ascii: "f"): literal = (Array("false".utf8), 1, .bool(false))
        case UInt8(ascii: "n"): literal = (Array("null".utf8), 1, .null)
        default: fail("expected a value")
        }
    }

    private mutating func startKey(_ byte: UInt8) {
        guard byte == UInt8(ascii: "\"") else { return fail("expected a member name") }
        beginString(isKey: true)
    }

    private mutating func beginString(isKey: Bool) {
        inString = true
        stringIsKey = isKey
        escape = .none
        chunks = nil
        buffer.removeAll(keepingCapacity: true)
    }

    private mutating func readString(_ byte: UInt8) {
        switch escape {
        case .none:
            if highSurrogate != nil, byte != UInt8(ascii: "\\") { appendScalar(0xFFFD); highSurrogate = nil }
            switch byte {
            case UInt8(ascii: "\""): endString()
            case UInt8(ascii: "\\"): escape = .backslash
            case 0..<0x20: fail("a control character inside a string")
            default: buffer.append(byte)
            }
        case .backslash:
            escape = .none
            if highSurrogate != nil, byte != UInt8(ascii: "u") { appendScalar(0xFFFD); highSurrogate = nil }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "u"): escape = .unicode(digits: 0, value: 0)
            default: fail("an unknown escape in a string")
            }
        case .unicode(let digits, let value):
            guard let digit = Self.hexValue(byte) else { return fail("a bad \\u escape") }
            let next = value << 4 | digit
            guard digits == 3 else {
                escape = .unicode(digits: digits + 1, value: next)
                return
            }
            escape = .none
            switch next {
            case 0xD800...0xDBFF:
                if highSurrogate != nil { appendScalar(0xFFFD) }
                highSurrogate = next
            case 0xDC00...0xDFFF:
                if let high = highSurrogate {
                    appendScalar(0x10000 + ((high - 0xD800) << 10) + (next - 0xDC00))
                    highSurrogate = nil
                } else {
                    appendScalar(0xFFFD)
                }
            default:
                appendScalar(next)
            }
        }
    }

    private mutating func appendScalar(_ value: UInt32) {
        buffer.append(contentsOf: String(Unicode.Scalar(value).map(Character.init) ?? "\u{FFFD}").utf8)
    }

    private mutating func endString() {
        inString = false
        if highSurrogate != nil { appendScalar(0xFFFD); highSurrogate = nil }
        var text = ""
        if let chunks {
            text.reserveCapacity(chunks.totalCount + buffer.count)
            for chunk in chunks.elementsInOrder { text += chunk }
        }
        text += String(decoding: buffer, as: UTF8.self)
        buffer.removeAll(keepingCapacity: true)
        chunks = nil
        if stringIsKey {
            frames[frames.count - 1].pendingKey = text
            mode = .colon
        } else {
            complete(.string(text))
        }
    }

    private mutating func completeNumber() {
        guard let text = number else { return }
        number = nil
        guard let value = Self.number(text) else { return fail("a malformed number") }
        complete(value)
    }

    private mutating func close(_ kind: PartialFrame.Kind) {
        let frame = frames.removeLast()
        complete(frame.value(adding: nil))
    }

    private mutating func complete(_ value: ChappieJSONValue) {
        guard !frames.isEmpty else {
            root = value
            mode = .end
            return
        }
        frames[frames.count - 1].append(value)
        mode = .commaOrEnd
    }

    private mutating func fail(_ reason: String) {
        failure = "\(reason) at byte \(bytesRead - 1)"
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "e"),
             UInt8(ascii: "E"):
            true
        default: false
        }
    }

    /// The number `text` spells: an `Int` when whole and in range (as ``ChappieJSONValue`` decodes
    /// `1.0` or `2e3`), else a `Double`; nil when not a number.
    static func number(_ text: [UInt8]) -> ChappieJSONValue? {
        let string = String(decoding: text, as: UTF8.self)
        if let integer = Int(string) { return .integer(integer) }
        guard let last = text.last, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(last), let double = Double(string), double.isFinite else {
            return nil
        }
        if double.rounded() == double, let integer = Int(exactly: double) { return .integer(integer) }
        return .number(double)
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}

/// An immutable list that grows at its end by sharing what came before: appending is O(1) and
/// never disturbs a snapshot holding an earlier cell.
final class PartialList<Element: Sendable>: Sendable {
    /// The newest element.
    let element: Element
    /// The cell before it.
    let previous: PartialList<Element>?
    /// How many elements the list holds up to this cell.
    let count: Int
    /// For strings: the UTF-8 bytes held up to this cell (a capacity hint).
    let totalCount: Int

    init(_ element: Element, after previous: PartialList<Element>?, weight: Int = 0) {
        self.element = element
        self.previous = previous
        count = (previous?.count ?? 0) + 1
        totalCount = (previous?.totalCount ?? 0) + weight
    }

    /// The elements, oldest first; O(count).
    var elementsInOrder: [Element] {
        var result: [Element] = []
        result.reserveCapacity(count)
        var cell: PartialList<Element>? = self
        while let current = cell {
            result.append(current.element)
            cell = current.previous
        }
        result.reverse()
        return result
    }
}

extension PartialList where Element == String {
    convenience init(_ text: String, after previous: PartialList<String>?) {
        self.init(text, after: previous, weight: text.utf8.count)
    }
}

/// An open array or object: its finished members so far, and for an object the name read for the
/// member whose value is still open.
struct PartialFrame: Sendable {
    enum Kind: Sendable { case object, array }

    struct Member: Sendable {
        var key: String?
        var value: ChappieJSONValue
    }

    let kind: Kind
    var members: PartialList<Member>?
    var pendingKey: String?

    init(kind: Kind) {
        self.kind = kind
    }

    mutating func append(_ value: ChappieJSONValue) {
        members = PartialList(Member(key: pendingKey, value: value), after: members)
        pendingKey = nil
    }

    /// The container with its members, plus `open` (the open member's value so far) when given.
    func value(adding open: ChappieJSONValue?) -> ChappieJSONValue {
        let finished = members?.elementsInOrder ?? []
        switch kind {
        case .array:
            var elements = finished.map(\.value)
            if let open { elements.append(open) }
            return .array(elements)
        case .object:
            var object = [String: ChappieJSONValue](minimumCapacity: finished.count + 1)
            for member in finished { if let key = member.key { object[key] = member.value } }
            if let open, let pendingKey { object[pendingKey] = open }
            return .object(object)
        }
    }
}

extension ChappieJSONValue {
    /// The open scalar of a snapshot.
    enum PartialScalar: Sendable {
        case none
        case value(ChappieJSONValue)
        case string(PartialList<String>?)
    }
}
