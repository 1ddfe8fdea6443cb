import Foundation

/// Decompresses the payload of one compressed message (RFC 7692 §7.2.2); implemented over zlib
/// by ``PerMessageDeflateCodec`` and replaced in tests.
protocol WebSocketMessageInflating: AnyObject {
    /// Inflates the compressed payload of one whole message (the frames' payloads joined, without
    /// the `00 00 FF FF` tail, which the implementation adds).
    ///
    /// - Throws: ``WebSocketProtocolViolation``: 1009 once the output would exceed `maximumBytes`
    ///   (a decompression bomb), 1007 for data that is not valid deflate.
    func inflate(_ payload: [UInt8], maximumBytes: Int) throws(WebSocketProtocolViolation) -> [UInt8]
}

/// Turns frames into messages and control events (RFC 6455 §5.4-5.6): joins a fragmented
/// message (a text or binary frame, continuation frames, control frames allowed in between),
/// decompresses a `permessage-deflate` message, checks that text is UTF-8 and that the message
/// fits the size limit, and parses close frames (§5.5.1, §7.4). Pure and synchronous.
///
/// Violations, with their close codes: a continuation frame with no message to continue, or a
/// new data frame inside a fragmented message → 1002; a close frame with a 1-byte payload or a
/// code a peer may not send → 1002; text or a close reason that is not UTF-8 → 1007; a message
/// (or its decompressed form) over `maximumMessageBytes` → 1009.
struct WebSocketMessageAssembler {
    /// What one frame produced.
    enum Event: Sendable, Equatable {
        /// A complete data message.
        case message(WebSocketMessage)
        /// A ping with its application data (answer with a pong carrying the same data).
        case ping([UInt8])
        /// A pong with its application data.
        case pong([UInt8])
        /// A close frame: its status code (nil when the frame had none: report 1005) and reason.
        case close(code: Int?, reason: String)
    }

    /// The largest message accepted, in bytes, compressed and decompressed.
    let maximumMessageBytes: Int
    /// Decompresses messages sent with RSV1; nil when `permessage-deflate` is not in use.
    let inflater: (any WebSocketMessageInflating)?

    private var messageOpcode: WebSocketFrame.Opcode?
    private var messageIsCompressed = false
    private var fragments: [UInt8] = []

    /// An assembler with a message limit of `maximumMessageBytes` bytes and an optional inflater.
    init(maximumMessageBytes: Int = WebSocketLimits.maximumFrameBytes, inflater: (any WebSocketMessageInflating)? = nil) {
        self.maximumMessageBytes = maximumMessageBytes
        self.inflater = inflater
    }

    /// Handles one frame; returns an event, or nil for a fragment of a message not yet complete.
    ///
    /// - Throws: ``WebSocketProtocolViolation`` as described on the type.
    mutating func accept(_ frame: WebSocketFrame) throws(WebSocketProtocolViolation) -> Event? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return try Self.close(frame.payload)
        case .continuation:
            guard messageOpcode != nil else { throw .protocolError("continuation frame without a message to continue") }
        default:
            guard messageOpcode == nil else { throw .protocolError("new data frame inside a fragmented message") }
            messageOpcode = frame.opcode
            messageIsCompressed = frame.isCompressed
        }
        guard fragments.count + frame.payload.count <= maximumMessageBytes else {
            throw .tooBig("a message exceeds the limit of \(maximumMessageBytes) bytes")
        }
        if fragments.isEmpty && frame.isFinal {
            return try complete(frame.payload)
        }
        fragments += frame.payload
        guard frame.isFinal else { return nil }
        let payload = fragments
        fragments = []
        return try complete(payload)
    }

    private mutating func complete(_ payload: [UInt8]) throws(WebSocketProtocolViolation) -> Event {
        let opcode = messageOpcode
        let compressed = messageIsCompressed
        messageOpcode = nil
        messageIsCompressed = false
        var data = payload
        if compressed {
            guard let inflater else { throw .protocolError("compressed message without permessage-deflate") }
            data = try inflater.inflate(payload, maximumBytes: maximumMessageBytes)
        }
        guard opcode == .text else { return .message(.binary(Data(data))) }
        guard let text = Self.utf8(data) else { throw .invalidPayload("text message that is not valid UTF-8") }
        return .message(.text(text))
    }

    private static func close(_ payload: [UInt8]) throws(WebSocketProtocolViolation) -> Event {
        guard !payload.isEmpty else { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else { throw .protocolError("close frame with a 1-byte payload") }
        let code = Int(payload[0]) << 8 | Int(payload[1])
        guard WebSocketCloseCode.isValidOnTheWire(code) else { throw .protocolError("close frame with the reserved code \(code)") }
        guard let reason = utf8(payload[2...]) else { throw .invalidPayload("close reason that is not valid UTF-8") }
        return .close(code: code, reason: reason)
    }

    /// The text of `bytes`, or nil when they are not valid UTF-8 (works below the macOS 15 /
    /// iOS 18 floor of `String(validating:as:)`: invalid input decodes to U+FFFD, which changes
    /// the bytes).
    static func utf8<Bytes: Collection>(_ bytes: Bytes) -> String? where Bytes.Element == UInt8 {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }
}
