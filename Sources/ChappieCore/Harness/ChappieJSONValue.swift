import Foundation

/// A JSON value (RFC 8259): used for tool input schemas, tool arguments and any payload the SDK
/// passes through without a fixed shape.
///
/// Integers that fit in `Int` decode as ``integer(_:)`` and are written back unchanged; every other
/// number is a ``number(_:)``.
public enum ChappieJSONValue: Sendable, Hashable, Codable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A whole number that fits in `Int`.
    case integer(Int)
    /// Any other number.
    case number(Double)
    /// A string.
    case string(String)
    /// An ordered array.
    case array([ChappieJSONValue])
    /// An object; key order is not preserved.
    case object([String: ChappieJSONValue])

    /// Decodes any JSON value. Throws `DecodingError` for input that is not JSON.
    public init(from decoder: any Decoder) throws {
        // Strings, objects and arrays first: they are most of what Chappie decodes, and each
        // failed attempt costs a thrown error. Bool, Int, Double keep their order so `1` stays an
        // integer and `1.5` a number.
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(String.self) {
            self = .string(value)
        } else if let object = try? decoder.container(keyedBy: MemberKey.self) {
            var members: [String: ChappieJSONValue] = [:]
            members.reserveCapacity(object.allKeys.count)
            for key in object.allKeys {
                members[key.stringValue] = try object.decode(ChappieJSONValue.self, forKey: key)
            }
            self = .object(members)
        } else if var array = try? decoder.unkeyedContainer() {
            var values: [ChappieJSONValue] = []
            if let count = array.count { values.reserveCapacity(count) }
            while !array.isAtEnd { values.append(try array.decode(ChappieJSONValue.self)) }
            self = .array(values)
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int.self) {
            self = .integer(value)
        } else {
            self = .number(try single.decode(Double.self))
        }
    }

    /// Any object member name.
    private struct MemberKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Encodes the value as JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Parses JSON text. Throws `DecodingError` when `data` is not valid JSON.
    public init(jsonData data: Data) throws {
        self = try JSONDecoder().decode(ChappieJSONValue.self, from: data)
    }

    /// Compact JSON text with sorted keys (stable output for logs and tests).
    ///
    /// Characters that can drive or mislead a terminal even inside a string are written as
    /// `\uXXXX` escapes (the same JSON value): the C1 controls U+0080–U+009F (U+009B starts a
    /// control sequence), the bidirectional marks, embeddings, overrides and isolates (U+061C,
    /// U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), and the line and paragraph separators
    /// U+2028 and U+2029.
    public var jsonString: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "null" }
        // Every character escaped here starts with one of these UTF-8 lead bytes.
        guard data.contains(where: { $0 == 0xC2 || $0 == 0xD8 || $0 == 0xE2 }) else { return String(decoding: data, as: UTF8.self) }
        var text = ""
        text.reserveCapacity(data.count)
        for scalar in String(decoding: data, as: UTF8.self).unicodeScalars {
            if Self.escapedInText(scalar) {
                text += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16, uppercase: true)
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    /// Whether `jsonString` writes `scalar` as an escape (see there).
    private static func escapedInText(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x80...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// The string, when this is a string.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The boolean, when this is a boolean.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The number as `Double`, when this is a number (whole or not).
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }
    /// The number as `Int`, when this is a whole number (or a string holding one).
    public var intValue: Int? {
        switch self {
        case .integer(let value): value
        case .number(let value): value.rounded() == value ? Int(exactly: value) : nil
        case .string(let value): Int(value)
        default: nil
        }
    }
    /// The elements, when this is an array.
    public var arrayValue: [ChappieJSONValue]? { if case .array(let value) = self { value } else { nil } }
    /// The members, when this is an object.
    public var objectValue: [String: ChappieJSONValue]? { if case .object(let value) = self { value } else { nil } }

    /// The member named `key`, when this is an object.
    public subscript(key: String) -> ChappieJSONValue? { objectValue?[key] }
}

extension ChappieJSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// Creates a string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// Creates a boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// Creates a whole number.
    public init(integerLiteral value: Int) { self = .integer(value) }
    /// Creates a number.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// Creates an array.
    public init(arrayLiteral elements: ChappieJSONValue...) { self = .array(elements) }
    /// Creates an object; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, ChappieJSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// Creates `null`.
    public init(nilLiteral: ()) { self = .null }
}
