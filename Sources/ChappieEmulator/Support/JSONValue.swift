import Foundation

/// A JSON value with ordered object keys, used both to read request bodies and to write every
/// JSON answer (RFC 8259). Keeping key order lets the emulator print `type` first, as the real
/// services do.
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.int(a), .int(b)): a == b
        case let (.double(a), .double(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }

    /// The member named `key` when this is an object (first match), else nil.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// The string payload, if this is a string.
    var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The Boolean payload, if this is a Boolean.
    var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The integer payload, if this is an integral number.
    var intValue: Int? {
        switch self {
        case .int(let value): value
        case .double(let value) where value.rounded() == value && abs(value) < 1e15: Int(value)
        default: nil
        }
    }
    /// The elements, if this is an array.
    var arrayValue: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    /// The members in order, if this is an object.
    var objectMembers: [(String, JSONValue)]? { if case .object(let value) = self { value } else { nil } }

    /// Parses `data` as one JSON document (RFC 8259); nil when it is not valid JSON.
    static func parse(_ data: Data) -> JSONValue? {
        var parser = JSONParser(bytes: Array(data))
        return parser.parseDocument()
    }

    /// Compact JSON text for this value.
    var serialized: String {
        var output = ""
        write(to: &output)
        return output
    }

    /// Compact JSON text for this value, as UTF-8 bytes.
    var data: Data { Data(serialized.utf8) }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .double(let value): output += value.isFinite ? String(value) : "null"
        case .string(let value): JSONValue.writeString(value, to: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += "," }
                JSONValue.writeString(member.0, to: &output)
                output += ":"
                member.1.write(to: &output)
            }
            output += "}"
        }
    }

    private static func writeString(_ string: String, to output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral
{
    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .int(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(floatLiteral value: Double) { self = .double(value) }
    init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(elements) }
}
