/// A strict recursive-descent JSON parser (RFC 8259) producing ``JSONValue`` with object keys in
/// document order. Nesting is capped so a hostile body cannot exhaust the stack.
struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    /// Creates a parser over UTF-8 `bytes`.
    init(bytes: [UInt8]) { self.bytes = bytes }

    /// Parses one value surrounded by optional whitespace; nil on any syntax error.
    mutating func parseDocument() -> JSONValue? {
        skipWhitespace()
        guard let value = parseValue() else { return nil }
        skipWhitespace()
        return index == bytes.count ? value : nil
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func parseValue() -> JSONValue? {
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return parseObject()
        case UInt8(ascii: "["): return parseArray()
        case UInt8(ascii: "\""): return parseString().map(JSONValue.string)
        case UInt8(ascii: "t"): return parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return parseLiteral("null", .null)
        default: return parseNumber()
        }
    }

    private mutating func parseLiteral(_ word: String, _ value: JSONValue) -> JSONValue? {
        let wordBytes = Array(word.utf8)
        guard index + wordBytes.count <= bytes.count, Array(bytes[index..<index + wordBytes.count]) == wordBytes else {
            return nil
        }
        index += wordBytes.count
        return value
    }

    private mutating func parseObject() -> JSONValue? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Limits.maximumDepth else { return nil }
        index += 1
        var members = [(String, JSONValue)]()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = parseString() else { return nil }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            skipWhitespace()
            guard let value = parseValue() else { return nil }
            members.append((key, value))
            skipWhitespace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            return nil
        }
    }

    private mutating func parseArray() -> JSONValue? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Limits.maximumDepth else { return nil }
        index += 1
        var elements = [JSONValue]()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            guard let value = parseValue() else { return nil }
            elements.append(value)
            skipWhitespace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            return nil
        }
    }

    private mutating func parseString() -> String? {
        index += 1
        var scalars = String.UnicodeScalarView()
        var raw = [UInt8]()
        func flushRaw() -> Bool {
            guard !raw.isEmpty else { return true }
            guard let text = UTF8Text.decode(raw) else { return false }
            scalars.append(contentsOf: text.unicodeScalars)
            raw.removeAll()
            return true
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return flushRaw() ? String(scalars) : nil
            case UInt8(ascii: "\\"):
                guard flushRaw(), index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    guard var code = parseHex4() else { return nil }
                    if (0xD800..<0xDC00).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { return nil }
                        index += 2
                        guard let low = parseHex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { return nil }
                    scalars.append(scalar)
                default: return nil
                }
            case 0..<0x20:
                return nil
            default:
                raw.append(byte)
            }
        }
        return nil
    }

    private mutating func parseHex4() -> UInt32? {
        guard index + 4 <= bytes.count, let text = UTF8Text.decode(bytes[index..<index + 4]),
            let value = UInt32(text, radix: 16)
        else { return nil }
        index += 4
        return value
    }

    private mutating func parseNumber() -> JSONValue? {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        var isIntegral = true
        while index < bytes.count {
            let byte = bytes[index]
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                index += 1
            } else if [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"), UInt8(ascii: "-")]
                .contains(byte)
            {
                isIntegral = false
                index += 1
            } else {
                break
            }
        }
        guard index > start, let text = UTF8Text.decode(bytes[start..<index]) else { return nil }
        if isIntegral, let value = Int(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else { return nil }
        return .double(value)
    }

    private enum Limits {
        static let maximumDepth = 256
    }
}
