/// The syntax of HTTP header fields (RFC 9110 §5.1 field names, §5.5 field values), checked at
/// every transport seam before a request is sent: a value that came from the network or from a
/// token's claims (an account id, a backend's turn state) must never smuggle a second header or a
/// second request into the connection.
enum HTTPFieldSyntax {
    /// Whether `name` is an HTTP token (RFC 9110 §5.6.2): one or more of `A–Z a–z 0–9` and
    /// ``Wire/tokenSymbols``.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || Wire.tokenSymbols.utf8.contains(byte)
        }
    }

    /// Whether `value` may be sent as a field value (RFC 9110 §5.5): visible ASCII, spaces,
    /// horizontal tabs and bytes of UTF-8 above 0x7F (obs-text); no CR, LF, NUL, other control
    /// character or DEL, and no leading or trailing whitespace (which a receiver strips, so the
    /// value would not arrive as sent).
    static func isFieldValue(_ value: String) -> Bool {
        let bytes = value.utf8
        guard bytes.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else { return false }
        guard let first = bytes.first, let last = bytes.last else { return true }
        return !Wire.whitespace.contains(first) && !Wire.whitespace.contains(last)
    }

    /// The name of the first header whose name or value HTTP does not allow, or nil when every
    /// header may be sent as it is. A name that is itself not a token is never echoed: it is
    /// reported as ``unprintableName``.
    static func firstInvalidField(in headers: [(name: String, value: String)]) -> String? {
        for header in headers {
            guard isToken(header.name) else { return Wire.unprintableName }
            guard isFieldValue(header.value) else { return header.name }
        }
        return nil
    }

    /// Throws ``TransportError/invalidHeaderField(_:)`` naming the first header that HTTP does
    /// not allow (the value is never part of the error).
    static func validate(_ headers: [(name: String, value: String)]) throws(TransportError) {
        if let name = firstInvalidField(in: headers) { throw .invalidHeaderField(name) }
    }

    /// What an error says in place of a header name that is not an HTTP token.
    static var unprintableName: String { Wire.unprintableName }

    private enum Wire {
        static let tokenSymbols = "!#$%&'*+-.^_`|~"
        /// SP and HTAB.
        static let whitespace: Set<UInt8> = [0x20, 0x09]
        static let unprintableName = "(a header name that is not an HTTP token)"
    }
}
