/// One WebSocket frame as it travels on the wire (RFC 6455 §5.2), payload unmasked.
struct WebSocketFrame: Sendable, Equatable {
    /// The frame's opcode (RFC 6455 §5.2, §11.8).
    struct Opcode: RawRepresentable, Sendable, Hashable {
        /// The 4-bit value on the wire.
        let rawValue: UInt8

        /// Continues a fragmented message (0x0).
        static let continuation = Opcode(rawValue: 0x0)
        /// The first frame of a text message (0x1).
        static let text = Opcode(rawValue: 0x1)
        /// The first frame of a binary message (0x2).
        static let binary = Opcode(rawValue: 0x2)
        /// A close frame (0x8).
        static let close = Opcode(rawValue: 0x8)
        /// A ping (0x9).
        static let ping = Opcode(rawValue: 0x9)
        /// A pong (0xA).
        static let pong = Opcode(rawValue: 0xA)

        /// Whether this is a control frame (close, ping, pong: the high bit of the opcode is set).
        var isControl: Bool { rawValue & 0x8 != 0 }

        /// Whether RFC 6455 defines this opcode; the others are reserved and end the connection.
        var isKnown: Bool { [0x0, 0x1, 0x2, 0x8, 0x9, 0xA].contains(rawValue) }
    }

    /// FIN: the last frame of a message.
    var isFinal: Bool
    /// RSV1: set on the first frame of a compressed message when `permessage-deflate` is in use
    /// (RFC 7692 §6).
    var isCompressed: Bool
    /// The opcode.
    var opcode: Opcode
    /// The application data, unmasked.
    var payload: [UInt8]

    /// A frame with the given fields; `isFinal` defaults to true and `isCompressed` to false.
    init(opcode: Opcode, payload: [UInt8], isFinal: Bool = true, isCompressed: Bool = false) {
        self.opcode = opcode
        self.payload = payload
        self.isFinal = isFinal
        self.isCompressed = isCompressed
    }
}

/// Close status codes (RFC 6455 §7.4.1, IANA "WebSocket Close Code Number Registry").
enum WebSocketCloseCode {
    /// 1000: normal closure.
    static let normal = 1000
    /// 1001: the endpoint is going away.
    static let goingAway = 1001
    /// 1002: protocol error.
    static let protocolError = 1002
    /// 1003: a data type the endpoint cannot accept.
    static let unsupportedData = 1003
    /// 1005: reported locally when a close frame carried no code; never sent.
    static let noStatusReceived = 1005
    /// 1006: reported locally when the connection ended without a close frame; never sent.
    static let abnormalClosure = 1006
    /// 1007: message data inconsistent with its type (text that is not UTF-8).
    static let invalidPayload = 1007
    /// 1008: policy violation.
    static let policyViolation = 1008
    /// 1009: a message too big to process.
    static let messageTooBig = 1009
    /// 1015: reported locally when the TLS handshake failed (the certificate could not be
    /// verified); never sent.
    static let tlsHandshakeFailure = 1015

    /// Whether a peer may send `code` in a close frame: 1000–1003, 1007–1014 and 3000–4999.
    /// 1004, 1005, 1006 and 1015 are reserved; the other values below 3000 are unassigned.
    static func isValidOnTheWire(_ code: Int) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }
}

/// Why this client failed a WebSocket connection: the close code it sends (RFC 6455 §7.1.7,
/// §7.4.1) and a short description for the error it reports.
struct WebSocketProtocolViolation: Error, Sendable, Equatable {
    /// The close code: 1002 protocol error, 1007 invalid payload, 1009 message too big.
    var closeCode: Int
    /// What was wrong, without any payload bytes.
    var reason: String

    /// A protocol error (1002).
    static func protocolError(_ reason: String) -> WebSocketProtocolViolation {
        WebSocketProtocolViolation(closeCode: WebSocketCloseCode.protocolError, reason: reason)
    }

    /// Data inconsistent with its message type (1007).
    static func invalidPayload(_ reason: String) -> WebSocketProtocolViolation {
        WebSocketProtocolViolation(closeCode: WebSocketCloseCode.invalidPayload, reason: reason)
    }

    /// A frame or message over the size limit (1009).
    static func tooBig(_ reason: String) -> WebSocketProtocolViolation {
        WebSocketProtocolViolation(closeCode: WebSocketCloseCode.messageTooBig, reason: reason)
    }

    /// The error callers see: ``WebSocketError/closed(code:reason:)`` with this code.
    var error: WebSocketError { .closed(code: closeCode, reason: reason) }
}
