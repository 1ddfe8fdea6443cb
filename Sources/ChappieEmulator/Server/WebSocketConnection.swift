import Foundation

/// A server-side WebSocket connection (RFC 6455) on an upgraded socket: reads client frames
/// (masked, possibly fragmented, capped), answers pings, echoes close, and writes unmasked text
/// frames. No extensions are negotiated, so frames are never compressed. Blocking; it runs on the
/// connection's own thread.
final class WebSocketConnection {
    /// What the next read produced.
    enum Incoming: Equatable {
        /// A complete text message.
        case text(String)
        /// A complete binary message.
        case binary(Data)
        /// The peer closed (or sent a close frame, which has been answered) or the socket failed.
        case closed
    }

    private let fd: Int32
    private var buffer: [UInt8]
    private(set) var isOpen = true

    /// Largest accepted message, in bytes.
    static let maximumMessageBytes = 16 * 1024 * 1024

    /// Wraps the upgraded socket `fd`; `leftover` holds bytes read past the handshake.
    init(fd: Int32, leftover: [UInt8]) {
        self.fd = fd
        self.buffer = leftover
    }

    /// The `Sec-WebSocket-Accept` value for a client's `Sec-WebSocket-Key` (RFC 6455 §4.2.2).
    static func acceptValue(forKey key: String) -> String {
        Data(SHA1.digest(Array((key + Wire.handshakeGUID).utf8))).base64EncodedString()
    }

    /// Reads frames until a complete data message arrives or the connection ends.
    func receive() -> Incoming {
        var message = [UInt8]()
        var messageOpcode: UInt8?
        while isOpen {
            guard let frame = readFrame() else { return close(code: nil) }
            switch frame.opcode {
            case Opcode.ping:
                guard send(opcode: Opcode.pong, payload: frame.payload) else { return close(code: nil) }
            case Opcode.pong:
                continue
            case Opcode.close:
                let code = frame.payload.count >= 2 ? UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]) : 1000
                return close(code: code)
            case Opcode.text, Opcode.binary, Opcode.continuation:
                if frame.opcode != Opcode.continuation {
                    guard messageOpcode == nil else { return close(code: 1002) }
                    messageOpcode = frame.opcode
                } else if messageOpcode == nil {
                    return close(code: 1002)
                }
                message += frame.payload
                guard message.count <= Self.maximumMessageBytes else { return close(code: 1009) }
                guard frame.isFinal else { continue }
                if messageOpcode == Opcode.binary { return .binary(Data(message)) }
                guard let text = UTF8Text.decode(message) else { return close(code: 1007) }
                return .text(text)
            default:
                return close(code: 1002)
            }
        }
        return .closed
    }

    /// Sends one text message; false when the peer is gone.
    @discardableResult
    func sendText(_ text: String) -> Bool {
        send(opcode: Opcode.text, payload: Array(text.utf8))
    }

    /// Sends a close frame with `code` and stops.
    func sendClose(code: UInt16, reason: String = "") {
        guard isOpen else { return }
        _ = send(opcode: Opcode.close, payload: [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8.prefix(120)))
        isOpen = false
    }

    /// Blocks until the peer goes away (used for a stalled reply).
    func waitUntilClosed() {
        while isOpen, receive() != .closed {}
    }

    private func close(code: UInt16?) -> Incoming {
        if let code { sendClose(code: code) }
        isOpen = false
        return .closed
    }

    private func send(opcode: UInt8, payload: [UInt8]) -> Bool {
        var frame: [UInt8] = [0x80 | opcode]
        switch payload.count {
        case 0..<126: frame.append(UInt8(payload.count))
        case 126...0xFFFF: frame += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            frame.append(127)
            frame += (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64($0 * 8)) }
        }
        guard SocketIO.sendAll(fd, frame + payload) else {
            isOpen = false
            return false
        }
        return true
    }

    private struct Frame {
        var isFinal: Bool
        var opcode: UInt8
        var payload: [UInt8]
    }

    private func readFrame() -> Frame? {
        guard fill(2) else { return nil }
        let isFinal = buffer[0] & 0x80 != 0
        let opcode = buffer[0] & 0x0F
        let masked = buffer[1] & 0x80 != 0
        var length = UInt64(buffer[1] & 0x7F)
        var offset = 2
        // Client frames must be masked (RFC 6455 §5.1) and carry no reserved bits (no extensions).
        guard masked, buffer[0] & 0x70 == 0 else { return nil }
        if length == 126 {
            guard fill(4) else { return nil }
            length = UInt64(buffer[2]) << 8 | UInt64(buffer[3])
            offset = 4
        } else if length == 127 {
            guard fill(10) else { return nil }
            length = (2..<10).reduce(UInt64(0)) { $0 << 8 | UInt64(buffer[$1]) }
            offset = 10
        }
        guard length <= UInt64(Self.maximumMessageBytes) else { return nil }
        let total = offset + 4 + Int(length)
        guard fill(total) else { return nil }
        let mask = Array(buffer[offset..<offset + 4])
        var payload = Array(buffer[offset + 4..<total])
        for index in payload.indices { payload[index] ^= mask[index % 4] }
        buffer.removeFirst(total)
        return Frame(isFinal: isFinal, opcode: opcode, payload: payload)
    }

    private func fill(_ count: Int) -> Bool {
        while buffer.count < count {
            guard let bytes = SocketIO.receive(fd), !bytes.isEmpty else { return false }
            buffer += bytes
        }
        return true
    }

    private enum Opcode {
        static let continuation: UInt8 = 0x0
        static let text: UInt8 = 0x1
        static let binary: UInt8 = 0x2
        static let close: UInt8 = 0x8
        static let ping: UInt8 = 0x9
        static let pong: UInt8 = 0xA
    }

    private enum Wire {
        static let handshakeGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    }
}
