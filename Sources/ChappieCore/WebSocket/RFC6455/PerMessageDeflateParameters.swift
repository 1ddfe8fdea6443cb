import Foundation

/// The `permessage-deflate` extension (RFC 7692) as the server accepted it: whether each side
/// resets its compression context after every message, and the LZ77 window each side may use.
///
/// The client offers `permessage-deflate; client_max_window_bits` (as Codex does, PROTOCOL
/// §12.1): it can inflate any window and lets the server limit the client's.
struct PerMessageDeflateParameters: Sendable, Equatable {
    /// `server_no_context_takeover`: the server resets its compressor after each message, so the
    /// client resets its decompressor too.
    var serverNoContextTakeover = false
    /// `client_no_context_takeover`: the client must reset its compressor after each message.
    var clientNoContextTakeover = false
    /// `server_max_window_bits` (8-15): the server's window; the client inflates with 15, which
    /// reads any smaller window.
    var serverMaxWindowBits = 15
    /// `client_max_window_bits` (8-15): the largest window the client may compress with.
    var clientMaxWindowBits = 15

    /// The `Sec-WebSocket-Extensions` value of the offer.
    static let offer = "\(Wire.name); \(Wire.clientMaxWindowBits)"

    /// Whether the client compresses what it sends. zlib cannot produce a raw deflate stream with
    /// an 8-bit window (it silently uses 9), so when the server asks for 8 the client sends
    /// uncompressed messages, which RFC 7692 §6 allows.
    var compressesOutgoingMessages: Bool { clientMaxWindowBits >= 9 }

    /// The parameters the server's `Sec-WebSocket-Extensions` fields (`values`, every line)
    /// select, or nil when it selected none.
    ///
    /// - Throws: ``WebSocketError/closed(code:reason:)`` with 1002 when the server selected an
    ///   extension that was not offered, more than one, an unknown or repeated parameter, or a
    ///   window size outside 8-15 (RFC 7692 §5, §7.1).
    static func negotiated(by values: [String], offered: Bool) throws(WebSocketError) -> PerMessageDeflateParameters? {
        let extensions = values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !extensions.isEmpty else { return nil }
        guard offered else { throw WebSocketHandshakeResponse.failure("the server selected an extension that was not offered") }
        guard extensions.count == 1 else { throw WebSocketHandshakeResponse.failure("the server selected more than one extension") }
        var parts = extensions[0].split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.removeFirst().lowercased() == Wire.name else {
            throw WebSocketHandshakeResponse.failure("the server selected an extension that was not offered")
        }
        var parameters = PerMessageDeflateParameters()
        var seen = Set<String>()
        for part in parts {
            let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let name = pieces[0].lowercased()
            let value = pieces.count == 2 ? pieces[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil
            guard seen.insert(name).inserted else { throw WebSocketHandshakeResponse.failure("a repeated permessage-deflate parameter") }
            switch (name, value) {
            case (Wire.serverNoContextTakeover, nil): parameters.serverNoContextTakeover = true
            case (Wire.clientNoContextTakeover, nil): parameters.clientNoContextTakeover = true
            case (Wire.serverMaxWindowBits, let value?): parameters.serverMaxWindowBits = try windowBits(value)
            case (Wire.clientMaxWindowBits, let value?): parameters.clientMaxWindowBits = try windowBits(value)
            default: throw WebSocketHandshakeResponse.failure("an unknown or malformed permessage-deflate parameter")
            }
        }
        return parameters
    }

    private static func windowBits(_ value: String) throws(WebSocketError) -> Int {
        guard value.count <= 2, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let bits = Int(value), (8...15).contains(bits) else {
            throw WebSocketHandshakeResponse.failure("a permessage-deflate window size outside 8-15")
        }
        return bits
    }

    private enum Wire {
        static let name = "permessage-deflate"
        static let serverNoContextTakeover = "server_no_context_takeover"
        static let clientNoContextTakeover = "client_no_context_takeover"
        static let serverMaxWindowBits = "server_max_window_bits"
        static let clientMaxWindowBits = "client_max_window_bits"
    }
}
