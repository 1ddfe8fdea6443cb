#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the few fields a delta event needs straight from its JSON bytes (RFC 8259), without
/// building a JSON tree: the top-level `type`, `delta` and `item_id` strings. Every other value is
/// skipped but still checked against the JSON grammar, so the scanner accepts exactly the objects
/// a full JSON parser accepts (minus the cases it hands back, below). One pass, linear in the
/// input, no allocation but the strings it returns.
///
/// It answers nil, and the caller falls back to the full decoder, for anything unusual: input that
/// is not one JSON object, a string escape it does not decode itself (a lone UTF-16 surrogate), a
/// wanted field that is repeated or not a string, or a nesting deeper than ``maximumDepth``.
struct DeltaEventScanner {
    /// The fields of a delta event; absent ones are nil.
    struct Fields: Equatable {
        /// The top-level `type`.
        var type: String?
        /// The top-level `delta`, unescaped.
        var delta: String?
        /// The top-level `item_id`.
        var itemID: String?
    }

    /// Deepest nesting of skipped arrays and objects accepted.
    static let maximumDepth = 512

    /// Scans `json`; nil when the fast path does not apply (see the type's description).
    static func scan(_ json: String) -> Fields? {
        var json = json
        return json.withUTF8 { bytes in
            var scanner = DeltaEventScanner(bytes: bytes)
            return scanner.object()
        }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private mutating func object() -> Fields? {
        var fields = Fields()
        skipWhitespace()
        guard consume(Wire.openBrace) else { return nil }
        skipWhitespace()
        if !consume(Wire.closeBrace) {
            while true {
                skipWhitespace()
                guard let key = keyKind() else { return nil }
                skipWhitespace()
                guard consume(Wire.colon) else { return nil }
                skipWhitespace()
                switch key {
                case .type, .delta, .itemID:
                    // A repeated or non-string wanted field is left to the full decoder. The two
                    // delta types are matched in place: no string is made for them.
                    guard peek == Wire.quote, let value = (key == .type ? knownType() : nil) ?? string() else { return nil }
                    switch key {
                    case .type where fields.type == nil: fields.type = value
                    case .delta where fields.delta == nil: fields.delta = value
                    case .itemID where fields.itemID == nil: fields.itemID = value
                    default: return nil
                    }
                case .other:
                    guard skipValue(depth: 0) else { return nil }
                }
                skipWhitespace()
                if consume(Wire.comma) { continue }
                guard consume(Wire.closeBrace) else { return nil }
                break
            }
        }
        skipWhitespace()
        return index == bytes.count ? fields : nil
    }

    private enum Key { case type, delta, itemID, other }

    /// Reads an object key and says whether it is one of the wanted ones.
    private mutating func keyKind() -> Key? {
        guard peek == Wire.quote else { return nil }
        let start = index + 1
        guard skipString() else { return nil }
        let key = UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)])
        switch key.count {
        case 4 where Self.equal(key, Wire.type): return .type
        case 5 where Self.equal(key, Wire.delta): return .delta
        case 7 where Self.equal(key, Wire.itemID): return .itemID
        default: return .other
        }
    }

    /// One of the two delta types, quoted, at `index`: the shared string, with `index` moved past
    /// it; nil (and `index` unchanged) for anything else.
    private mutating func knownType() -> String? {
        if consumeQuoted(Wire.quotedTextDelta) { return Wire.textDelta }
        if consumeQuoted(Wire.quotedReasoningDelta) { return Wire.reasoningDelta }
        return nil
    }

    /// Moves past `quoted` when the bytes at `index` are exactly it.
    private mutating func consumeQuoted(_ quoted: [UInt8]) -> Bool {
        guard index + quoted.count <= bytes.count, Self.equal(UnsafeBufferPointer(rebasing: bytes[index..<(index + quoted.count)]), quoted) else {
            return false
        }
        index += quoted.count
        return true
    }

    /// Byte equality (memcmp).
    private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ other: [UInt8]) -> Bool {
        guard bytes.count == other.count, let base = bytes.baseAddress else { return bytes.count == other.count }
        return other.withUnsafeBufferPointer { memcmp(base, $0.baseAddress!, other.count) == 0 }
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    /// Decodes a string at `index` (on its opening quote); nil when it is malformed or holds an
    /// escape this scanner leaves to the full decoder.
    private mutating func string() -> String? {
        index += 1
        let start = index
        // Fast path: no escapes, the common case for deltas.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == Wire.quote {
                let value = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return value
            }
            if byte == Wire.backslash { break }
            if byte < 0x20 { return nil }
            index += 1
        }
        var scalars: [UInt8] = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case Wire.quote:
                index += 1
                return String(decoding: scalars, as: UTF8.self)
            case Wire.backslash:
                index += 1
                guard let escaped = peek else { return nil }
                index += 1
                switch escaped {
                case Wire.quote, Wire.backslash, Wire.slash: scalars.append(escaped)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    guard let unit = hexUnit() else { return nil }
                    var scalar: Unicode.Scalar?
                    if (0xD800...0xDBFF).contains(unit) {
                        guard consume(Wire.backslash), consume(UInt8(ascii: "u")), let low = hexUnit(), (0xDC00...0xDFFF).contains(low) else {
                            return nil
                        }
                        scalar = Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
                    } else {
                        scalar = Unicode.Scalar(unit)
                    }
                    guard let scalar else { return nil }
                    scalars.append(contentsOf: UTF8.encode(scalar)!)
                default:
                    return nil
                }
            default:
                if byte < 0x20 { return nil }
                scalars.append(byte)
                index += 1
            }
        }
        return nil
    }

    private mutating func hexUnit() -> UInt16? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    /// Skips a string at `index` (on its opening quote), checking its escapes.
    private mutating func skipString() -> Bool {
        index += 1
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == Wire.quote { return true }
            if byte < 0x20 { return false }
            if byte == Wire.backslash {
                guard let escaped = peek else { return false }
                index += 1
                switch escaped {
                case Wire.quote, Wire.backslash, Wire.slash, UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"),
                     UInt8(ascii: "t"):
                    continue
                case UInt8(ascii: "u"):
                    // A lone surrogate, which the JSON decoder rejects, makes the scanner step aside too.
                    guard let unit = hexUnit(), !(0xDC00...0xDFFF).contains(unit) else { return false }
                    if (0xD800...0xDBFF).contains(unit) {
                        guard consume(Wire.backslash), consume(UInt8(ascii: "u")), let low = hexUnit(), (0xDC00...0xDFFF).contains(low) else {
                            return false
                        }
                    }
                default:
                    return false
                }
            }
        }
        return false
    }

    /// Skips any JSON value at `index`, checking its grammar.
    private mutating func skipValue(depth: Int) -> Bool {
        guard depth < Self.maximumDepth, let byte = peek else { return false }
        switch byte {
        case Wire.quote:
            return skipString()
        case Wire.openBrace:
            index += 1
            skipWhitespace()
            if consume(Wire.closeBrace) { return true }
            while true {
                skipWhitespace()
                guard peek == Wire.quote, skipString() else { return false }
                skipWhitespace()
                guard consume(Wire.colon) else { return false }
                skipWhitespace()
                guard skipValue(depth: depth + 1) else { return false }
                skipWhitespace()
                if consume(Wire.comma) { continue }
                return consume(Wire.closeBrace)
            }
        case Wire.openBracket:
            index += 1
            skipWhitespace()
            if consume(Wire.closeBracket) { return true }
            while true {
                skipWhitespace()
                guard skipValue(depth: depth + 1) else { return false }
                skipWhitespace()
                if consume(Wire.comma) { continue }
                return consume(Wire.closeBracket)
            }
        case UInt8(ascii: "t"): return skipLiteral(Wire.trueLiteral)
        case UInt8(ascii: "f"): return skipLiteral(Wire.falseLiteral)
        case UInt8(ascii: "n"): return skipLiteral(Wire.nullLiteral)
        default: return skipNumber()
        }
    }

    private mutating func skipLiteral(_ literal: [UInt8]) -> Bool {
        guard index + literal.count <= bytes.count, bytes[index..<(index + literal.count)].elementsEqual(literal) else { return false }
        index += literal.count
        return true
    }

    /// Skips a number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]{1,2})?`. An integer
    /// part of more than ``maximumIntegerDigits`` digits or a longer exponent is handed back
    /// (false): the full decoder rejects a number a `Double` cannot hold, and real events never
    /// carry one.
    private mutating func skipNumber() -> Bool {
        _ = consume(UInt8(ascii: "-"))
        if consume(UInt8(ascii: "0")) {
            // a leading zero stands alone
        } else {
            guard let first = peek, (0x31...0x39).contains(first) else { return false }
            let start = index
            skipDigits()
            guard index - start <= Self.maximumIntegerDigits else { return false }
        }
        if consume(UInt8(ascii: ".")) {
            guard let digit = peek, (0x30...0x39).contains(digit) else { return false }
            skipDigits()
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard let digit = peek, (0x30...0x39).contains(digit) else { return false }
            let start = index
            skipDigits()
            guard index - start <= 2 else { return false }
        }
        return true
    }

    /// The longest integer part skipped in place: with an exponent of at most 99 the number stays
    /// well inside a `Double`'s range (1.8e308).
    static let maximumIntegerDigits = 200

    private mutating func skipDigits() {
        while let byte = peek, (0x30...0x39).contains(byte) { index += 1 }
    }

    private enum Wire {
        static let quote = UInt8(ascii: "\"")
        static let backslash = UInt8(ascii: "\\")
        static let slash = UInt8(ascii: "/")
        static let colon = UInt8(ascii: ":")
        static let comma = UInt8(ascii: ",")
        static let openBrace = UInt8(ascii: "{")
        static let closeBrace = UInt8(ascii: "}")
        static let openBracket = UInt8(ascii: "[")
        static let closeBracket = UInt8(ascii: "]")
        static let type = Array("type".utf8)
        static let delta = Array("delta".utf8)
        static let itemID = Array("item_id".utf8)
        static let textDelta = "response.output_text.delta"
        static let reasoningDelta = "response.reasoning_summary_text.delta"
        static let quotedTextDelta = Array("\"response.output_text.delta\"".utf8)
        static let quotedReasoningDelta = Array("\"response.reasoning_summary_text.delta\"".utf8)
        static let trueLiteral = Array("true".utf8)
        static let falseLiteral = Array("false".utf8)
        static let nullLiteral = Array("null".utf8)
    }
}
