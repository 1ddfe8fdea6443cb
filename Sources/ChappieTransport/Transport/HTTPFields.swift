/// One header field: a name and a value, as sent or received.
package struct HTTPField: Sendable, Hashable {
    /// The field name, spelled as given (lookups ignore case).
    package var name: String
    /// The field value.
    package var value: String

    /// A field named `name` holding `value`.
    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Header fields in order, the one shape headers have at every transport seam (requests, response
/// heads, WebSocket handshakes): lookups by name ignore case (RFC 9110 §5.1), a name may occur more
/// than once, and the fields go on the wire in the order they were added, names as spelled.
///
/// Before anything is sent, ``validate()`` checks every name and value against ``HTTPFieldSyntax``
/// (a value from a token's claims or from the server must never smuggle a second header in); the
/// transports call it at their seam. A description never shows the value of a credential-bearing
/// field (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`): it reads `[redacted]`;
/// other values go through ``Redaction/clean(_:maximumBytes:)`` (a token in any other field too).
package struct HTTPFields: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral,
    CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable {
    private var fields: [HTTPField]

    /// No fields.
    package init() { fields = [] }

    /// The fields of `fields`, in order.
    package init(_ fields: some Sequence<HTTPField>) { self.fields = Array(fields) }

    /// The fields of the literal, in its order (a name may occur more than once).
    package init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { HTTPField(name: $0.0, value: $0.1) }
    }

    /// The fields of the literal, in its order.
    package init(arrayLiteral elements: HTTPField...) { fields = elements }

    package var startIndex: Int { fields.startIndex }
    package var endIndex: Int { fields.endIndex }
    package subscript(position: Int) -> HTTPField { fields[position] }

    /// The value of the first field named `name` (case-insensitive), or nil when there is none.
    package subscript(name: String) -> String? {
        fields.first { Self.matches($0.name, name) }?.value
    }

    /// The values of every field named `name` (case-insensitive), in order.
    package func values(_ name: String) -> [String] {
        fields.filter { Self.matches($0.name, name) }.map(\.value)
    }

    /// Whether a field is named `name` (case-insensitive).
    package func contains(_ name: String) -> Bool { fields.contains { Self.matches($0.name, name) } }

    /// Adds a field after the others (an earlier one of the same name stays).
    package mutating func append(_ field: HTTPField) { fields.append(field) }

    /// Adds a field named `name` holding `value` after the others.
    package mutating func append(name: String, value: String) { append(HTTPField(name: name, value: value)) }

    /// Adds `other`'s fields after these, in their order.
    package mutating func append(contentsOf other: HTTPFields) { fields.append(contentsOf: other.fields) }

    /// These fields followed by `other`'s.
    package static func + (lhs: HTTPFields, rhs: HTTPFields) -> HTTPFields {
        var result = lhs
        result.append(contentsOf: rhs)
        return result
    }

    /// These fields without the ones named like any of `names` (case-insensitive), order kept.
    package func removing(_ names: Set<String>) -> HTTPFields {
        let lowered = Set(names.map { $0.lowercased() })
        return HTTPFields(fields.filter { !lowered.contains($0.name.lowercased()) })
    }

    /// The name of the first field whose name or value HTTP does not allow (``HTTPFieldSyntax``),
    /// or nil when every field may be sent as it is. A name that is itself not a token is never
    /// echoed: it is reported as ``HTTPFieldSyntax/unprintableName``.
    package var firstInvalidField: String? {
        for field in fields {
            guard HTTPFieldSyntax.isToken(field.name) else { return HTTPFieldSyntax.unprintableName }
            guard HTTPFieldSyntax.isFieldValue(field.value) else { return field.name }
        }
        return nil
    }

    /// Throws ``TransportError/invalidHeaderField(_:)`` naming the first field that HTTP does not
    /// allow (``firstInvalidField``; the value is never part of the error).
    package func validate() throws(TransportError) {
        if let name = firstInvalidField { throw .invalidHeaderField(name) }
    }

    /// `[name: value, …]` in order, the values of credential-bearing fields as `[redacted]`.
    package var description: String {
        "[" + fields.map { "\($0.name): \(Self.shown($0))" }.joined(separator: ", ") + "]"
    }

    package var debugDescription: String { description }

    package var customMirror: Mirror {
        Mirror(self, unlabeledChildren: fields.map { "\($0.name): \(Self.shown($0))" }, displayStyle: .collection)
    }

    private static func shown(_ field: HTTPField) -> String {
        Wire.secretNames.contains(field.name.lowercased()) ? Wire.redacted : Redaction.clean(field.value)
    }

    private static func matches(_ name: String, _ other: String) -> Bool {
        name.lowercased() == other.lowercased()
    }

    private enum Wire {
        /// Fields whose values are credentials, lower-cased.
        static let secretNames: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]
        static let redacted = "[redacted]"
    }
}
