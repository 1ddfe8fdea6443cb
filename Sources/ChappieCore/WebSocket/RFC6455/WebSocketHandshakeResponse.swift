import Foundation

/// The server's answer to the opening handshake (RFC 6455 §4.1, §4.2.2): its status, its header
/// fields, and the checks that decide whether the connection is a WebSocket.
struct WebSocketHandshakeResponse: Sendable {
    /// The HTTP status code (101 when the server switches protocols).
    var status: Int
    /// The header fields in order, names as sent.
    var headers: [(name: String, value: String)]

    /// The values of every field named `name` (case-insensitive), in order.
    func values(_ name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// Checks that the server accepted this handshake and returns the negotiated
    /// `permessage-deflate` parameters (nil when the server declined it).
    ///
    /// - Throws: ``WebSocketError/handshakeRejected(status:)`` for any status but 101 (a 3xx is
    ///   refused, never followed: the token must not go to another host);
    ///   ``WebSocketError/closed(code:reason:)`` with 1002 when a 101 lacks `Upgrade: websocket`
    ///   or `Connection: Upgrade`, carries a wrong `Sec-WebSocket-Accept`, selects a subprotocol
    ///   that was not offered, or answers the extension offer with anything but valid
    ///   `permessage-deflate` parameters (RFC 7692 §5).
    func validate(expectedAccept: String, offeredDeflate: Bool) throws(WebSocketError) -> PerMessageDeflateParameters? {
        guard status == 101 else { throw .handshakeRejected(status: status) }
        guard values(Wire.upgrade).contains(where: { $0.lowercased() == Wire.websocket }) else {
            throw Self.failure("the 101 response lacks Upgrade: websocket")
        }
        let connectionTokens = values(Wire.connection).flatMap { $0.split(separator: ",") }
        guard connectionTokens.contains(where: { $0.trimmingCharacters(in: .whitespaces).lowercased() == Wire.upgradeToken }) else {
            throw Self.failure("the 101 response lacks Connection: Upgrade")
        }
        guard values(Wire.accept) == [expectedAccept] else { throw Self.failure("the 101 response has a wrong Sec-WebSocket-Accept") }
        guard values(Wire.subprotocol).isEmpty else { throw Self.failure("the server selected a subprotocol that was not offered") }
        return try PerMessageDeflateParameters.negotiated(by: values(Wire.extensions), offered: offeredDeflate)
    }

    static func failure(_ reason: String) -> WebSocketError {
        .closed(code: WebSocketCloseCode.protocolError, reason: "handshake: " + reason)
    }

    private enum Wire {
        static let upgrade = "Upgrade"
        static let websocket = "websocket"
        static let connection = "Connection"
        static let upgradeToken = "upgrade"
        static let accept = "Sec-WebSocket-Accept"
        static let subprotocol = "Sec-WebSocket-Protocol"
        static let extensions = "Sec-WebSocket-Extensions"
    }
}

/// Reads the head of the handshake response (status line and header fields up to the blank line)
/// from bytes fed in chunks of any size, within a byte cap; the bytes after the head are the
/// first WebSocket frames and are handed back. Pure and synchronous.
struct WebSocketHandshakeResponseReader {
    /// The largest head accepted, in bytes (16 KiB by default).
    let maximumHeadBytes: Int

    private var buffer: [UInt8] = []
    private var scanned = 0

    /// A reader refusing a head longer than `maximumHeadBytes`.
    init(maximumHeadBytes: Int = 16 * 1024) {
        self.maximumHeadBytes = maximumHeadBytes
    }

    /// Appends `bytes`; returns the response and the bytes after its head once the blank line has
    /// arrived, nil while more are needed.
    ///
    /// - Throws: ``WebSocketError/closed(code:reason:)`` with 1002 when the head exceeds the cap
    ///   or is not an HTTP/1.x response head.
    mutating func feed<Bytes: Collection>(
        _ bytes: Bytes
    ) throws(WebSocketError) -> (response: WebSocketHandshakeResponse, leftover: [UInt8])? where Bytes.Element == UInt8 {
        buffer.append(contentsOf: bytes)
        var index = max(0, scanned - 3)
        // The head, blank line included, is at most maximumHeadBytes long.
        while index + 3 < buffer.count, index + 4 <= maximumHeadBytes {
            if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10 {
                let response = try Self.parse(buffer[..<index])
                return (response, Array(buffer[(index + 4)...]))
            }
            index += 1
        }
        guard buffer.count < maximumHeadBytes else {
            throw WebSocketHandshakeResponse.failure("the response head exceeds \(maximumHeadBytes) bytes")
        }
        scanned = buffer.count
        return nil
    }

    private static func parse(_ head: ArraySlice<UInt8>) throws(WebSocketError) -> WebSocketHandshakeResponse {
        var lines = head.split(separator: 10, omittingEmptySubsequences: false).map { line in
            line.last == 13 ? line.dropLast() : line
        }
        guard !lines.isEmpty else { throw WebSocketHandshakeResponse.failure("empty response head") }
        let statusLine = String(decoding: lines.removeFirst(), as: UTF8.self)
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3,
            parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) }), let status = Int(parts[1])
        else { throw WebSocketHandshakeResponse.failure("malformed status line") }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: 58) else { throw WebSocketHandshakeResponse.failure("malformed header line") }
            let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self)
            // A name must be a token; a line starting with whitespace is an obsolete fold (RFC 9112 §5.2).
            guard WebSocketHandshake.isToken(name) else { throw WebSocketHandshakeResponse.failure("malformed header name") }
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            headers.append((name, value))
        }
        return WebSocketHandshakeResponse(status: status, headers: headers)
    }
}
