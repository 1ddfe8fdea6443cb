import Foundation

/// The client's opening handshake (RFC 6455 §4.1): the HTTP/1.1 upgrade request and the
/// `Sec-WebSocket-Accept` value the server must answer with.
///
/// The headers a caller passes (`Authorization`, `ChatGPT-Account-ID`, …) are sent exactly as
/// given and never appear in an error message or a log; only their shape is checked, so a value
/// cannot smuggle a second header in (no CR, LF or NUL; names are HTTP tokens). Caller headers
/// named like the ones the handshake owns (`Host`, `Upgrade`, `Connection`, `Sec-WebSocket-*`)
/// are left out: the handshake's own values win.
struct WebSocketHandshake: Sendable {
    /// The `Sec-WebSocket-Key`: 16 random bytes, base64-encoded (§4.1, item 7).
    let key: String

    /// A handshake with a fresh random key from `SystemRandomNumberGenerator`.
    init() {
        var generator = SystemRandomNumberGenerator()
        key = Data((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64EncodedString()
    }

    /// A handshake with a given key (tests use the RFC's sample `dGhlIHNhbXBsZSBub25jZQ==`).
    init(key: String) { self.key = key }

    /// The `Sec-WebSocket-Accept` value a server must send for ``key``: base64 of the SHA-1 of the
    /// key followed by the RFC's GUID (§4.2.2, item 5.4). `sha1` returns the 20-byte digest.
    func expectedAccept(sha1: ([UInt8]) -> [UInt8]) -> String {
        Data(sha1(Array((key + Wire.guid).utf8))).base64EncodedString()
    }

    /// The request bytes for `endpoint`, with `headers` after the handshake's own, offering
    /// `permessage-deflate` when `offersDeflate`.
    ///
    /// - Throws: ``WebSocketError/unsupported(_:)`` when a header name is not an HTTP token or a
    ///   value contains CR, LF or NUL (the message names neither).
    func request(for endpoint: WebSocketEndpoint, headers: [(name: String, value: String)], offersDeflate: Bool) throws(WebSocketError) -> [UInt8] {
        var lines = [
            "GET \(endpoint.requestTarget) HTTP/1.1",
            "\(Wire.host): \(endpoint.hostHeader)",
            "\(Wire.upgrade): websocket",
            "\(Wire.connection): Upgrade",
            "\(Wire.key): \(key)",
            "\(Wire.version): 13",
        ]
        if offersDeflate { lines.append("\(Wire.extensions): \(PerMessageDeflateParameters.offer)") }
        try Self.checkHeaders(headers)
        for header in headers {
            let lowered = header.name.lowercased()
            guard !Wire.owned.contains(lowered), !lowered.hasPrefix(Wire.ownedPrefix) else { continue }
            lines.append("\(header.name): \(header.value)")
        }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// Checks that every header can be sent as it is (``HTTPFieldSyntax``, the same rule as the
    /// HTTP transports).
    ///
    /// - Throws: ``WebSocketError/unsupported(_:)`` when a name is not an HTTP token or a value
    ///   is not an HTTP field value (CR, LF, NUL, another control character); the message names
    ///   neither.
    static func checkHeaders(_ headers: [(name: String, value: String)]) throws(WebSocketError) {
        guard HTTPFieldSyntax.firstInvalidField(in: headers) == nil else {
            throw .unsupported("a handshake header has a name or value that HTTP does not allow")
        }
    }

    /// Whether `name` is an HTTP token (RFC 9110 §5.6.2).
    static func isToken(_ name: String) -> Bool { HTTPFieldSyntax.isToken(name) }

    private enum Wire {
        static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
        static let host = "Host"
        static let upgrade = "Upgrade"
        static let connection = "Connection"
        static let key = "Sec-WebSocket-Key"
        static let version = "Sec-WebSocket-Version"
        static let extensions = "Sec-WebSocket-Extensions"
        static let owned: Set<String> = ["host", "upgrade", "connection"]
        static let ownedPrefix = "sec-websocket-"
    }
}
