import Foundation

/// A server-side WebSocket connection (RFC 6455) on an upgraded socket: reads client frames
/// (masked, possibly fragmented, capped), answers pings, echoes close, and writes unmasked text
/// frames. No extensions are negotiated, so frames are never compressed. Blocking; it runs on the
/// connection's own thread.
///
/// Protocol errors end the connection with a close frame (RFC 6455 §7.4.1), after which the
/// server waits up to ``closeReplyWait`` for the client's close frame before the socket closes:
/// * an unmasked client frame, reserved bits set (no extension was negotiated), an unknown opcode
///   or a continuation frame out of place → 1002 (protocol error);
/// * a frame, or a fragmented message, of ``maximumMessageBytes`` (16 MiB) or more → 1009 (message
///   too big, PROTOCOL §6.2, FAILURE-CASES 25); the rest of the oversized frame is read and
///   discarded first, so a client still sending it is not reset;
/// * a text message that is not UTF-8 → 1007.
final class WebSocketConnection {
    /// What the next read produced.
    enum Incoming: Equatable {
        /// A complete text message.
        case text(String)
        /// A complete binary message.
        case binary(Data)
        /// The connection ended: the peer closed (a close frame, answered, or EOF), a protocol
        /// error closed it, or the socket failed.
        case closed
    }

    private let fd: Int32
    private let isStopping: @Sendable () -> Bool
    private var buffer: [UInt8]
    private var message = [UInt8]()
    private var messageOpcode: UInt8?
    private var pending = [Incoming]()
    /// Whether frames may still be read and written.
    private(set) var isOpen = true
    /// Whether the client ended the connection (a close frame or EOF), as opposed to the server
    /// or an emulator shutdown.
    private(set) var closedByPeer = false
    /// The status code of the client's close frame, nil when it sent none (or no code).
    private(set) var peerCloseCode: UInt16?

    /// Messages of this many bytes (16 MiB) or more are refused with close code 1009.
    static let maximumMessageBytes = 16 * 1024 * 1024
    /// How long the server waits for the client's close frame after sending its own.
    static let closeReplyWait = Duration.seconds(5)

    /// Wraps the upgraded socket `fd`; `leftover` holds bytes read past the handshake;
    /// `isStopping` tells whether the emulator is shutting down (an EOF is then not the peer's).
    init(fd: Int32, leftover: [UInt8], isStopping: @escaping @Sendable () -> Bool = { false }) {
        self.fd = fd
        self.buffer = leftover
        self.isStopping = isStopping
    }

    /// The `Sec-WebSocket-Accept` value for a client's `Sec-WebSocket-Key` (RFC 6455 §4.2.2).
    static func acceptValue(forKey key: String) -> String {
        Data(SHA1.digest(Array((key + Wire.handshakeGUID).utf8))).base64EncodedString()
    }

    /// Returns the next complete data message, reading frames as needed; messages that arrived
    /// while a response was being sent (see ``serviceIncoming(within:)``) come first.
    func receive() -> Incoming {
        if !pending.isEmpty { return pending.removeFirst() }
        while isOpen {
            if let incoming = step() { return incoming }
        }
        return .closed
    }

    /// Removes and returns the first data message that arrived while a response was being sent
    /// (see ``serviceIncoming(within:)``) and that `matches`, leaving the others for ``receive()``.
    func takePending(where matches: (Incoming) -> Bool) -> Incoming? {
        guard let index = pending.firstIndex(where: matches) else { return nil }
        return pending.remove(at: index)
    }

    /// While a response is being sent: waits up to `duration` (zero = only what already arrived)
    /// and handles whatever the client sends meanwhile: pings are answered, a close frame is
    /// answered and ends the connection, data messages are kept for ``receive()``. The wait ends
    /// early once a kept message satisfies `endsWait` (one that arrived before included).
    /// - Returns: false when the connection has ended.
    func serviceIncoming(within duration: Duration, endingEarlyFor endsWait: (Incoming) -> Bool = { _ in false }) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + duration
        while isOpen {
            if pending.contains(where: endsWait) { return true }
            let remaining = max(.zero, clock.now.duration(to: deadline))
            switch SocketIO.waitReadable(fd, within: remaining) {
            case .failed:
                _ = endByPeer()
            case .timedOut:
                return isOpen
            case .readable:
                if let incoming = step(), incoming != .closed { pending.append(incoming) }
            }
            if remaining == .zero { return isOpen }
        }
        return false
    }

    /// Sends one text message; false when the peer is gone.
    @discardableResult
    func sendText(_ text: String) -> Bool {
        send(opcode: Opcode.text, payload: Array(text.utf8))
    }

    /// Sends a close frame with `code` and `reason` (at most 123 bytes), then waits up to
    /// ``closeReplyWait`` for the client's close frame; the connection is over afterwards.
    func close(code: UInt16, reason: String = "") {
        guard isOpen else { return }
        _ = send(opcode: Opcode.close, payload: [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8.prefix(123)))
        isOpen = false
        SocketIO.limitReceiveWait(fd, to: Self.closeReplyWait)
        while case .frame(let frame) = readFrame(), frame.opcode != Opcode.close {}
    }

    /// Ends the connection without a close frame: the socket just closes (TCP FIN), which a
    /// client reports as an abnormal closure (1006).
    func dropWithoutCloseFrame() {
        isOpen = false
    }

    /// Ends the connection with a TCP reset and no close frame (an abrupt drop).
    func reset() {
        SocketIO.resetOnClose(fd)
        isOpen = false
    }

    /// Blocks without reading a byte until the socket hangs up (the peer resets it, or the
    /// emulator shuts down): a peer that stopped reading. The connection is over afterwards.
    func waitUntilHungUp() {
        SocketIO.waitUntilHungUp(fd)
        isOpen = false
    }

    /// Blocks until the peer goes away (used for a stalled reply).
    func waitUntilClosed() {
        while isOpen, receive() != .closed {}
    }

    /// Reads and handles one frame; returns a complete data message, `.closed` when the
    /// connection ended, or nil for a control frame or a fragment.
    private func step() -> Incoming? {
        let frame: Frame
        switch readFrame() {
        case .frame(let read): frame = read
        case .endOfStream: return endByPeer()
        case .violation(let code): return fail(code)
        }
        switch frame.opcode {
        case Opcode.ping:
            guard send(opcode: Opcode.pong, payload: frame.payload) else { return endByPeer() }
            return nil
        case Opcode.pong:
            return nil
        case Opcode.close:
            closedByPeer = !isStopping()
            if frame.payload.count >= 2 { peerCloseCode = UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]) }
            _ = send(opcode: Opcode.close, payload: Array(frame.payload.prefix(2)))
            isOpen = false
            return .closed
        case Opcode.text, Opcode.binary, Opcode.continuation:
            if frame.opcode != Opcode.continuation {
                guard messageOpcode == nil else { return fail(Wire.protocolError) }
                messageOpcode = frame.opcode
            } else if messageOpcode == nil {
                return fail(Wire.protocolError)
            }
            message += frame.payload
            guard message.count < Self.maximumMessageBytes else { return fail(Wire.messageTooBig) }
            guard frame.isFinal else { return nil }
            let opcode = messageOpcode
            let bytes = message
            message = []
            messageOpcode = nil
            if opcode == Opcode.binary { return .binary(Data(bytes)) }
            guard let text = UTF8Text.decode(bytes) else { return fail(Wire.invalidPayload) }
            return .text(text)
        default:
            return fail(Wire.protocolError)
        }
    }

    private func endByPeer() -> Incoming {
        if isOpen { closedByPeer = !isStopping() }
        isOpen = false
        return .closed
    }

    private func fail(_ code: UInt16) -> Incoming {
        close(code: code)
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
            if isOpen { closedByPeer = !isStopping() }
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

    private enum FrameRead {
        case frame(Frame)
        case endOfStream
        case violation(UInt16)
    }

    private func readFrame() -> FrameRead {
        guard fill(2) else { return .endOfStream }
        let isFinal = buffer[0] & 0x80 != 0
        let opcode = buffer[0] & 0x0F
        let masked = buffer[1] & 0x80 != 0
        var length = UInt64(buffer[1] & 0x7F)
        var offset = 2
        // Client frames must be masked (RFC 6455 §5.1) and carry no reserved bits (no extensions).
        guard masked, buffer[0] & 0x70 == 0 else { return .violation(Wire.protocolError) }
        if length == 126 {
            guard fill(4) else { return .endOfStream }
            length = UInt64(buffer[2]) << 8 | UInt64(buffer[3])
            offset = 4
        } else if length == 127 {
            guard fill(10) else { return .endOfStream }
            length = (2..<10).reduce(UInt64(0)) { $0 << 8 | UInt64(buffer[$1]) }
            offset = 10
            // The most significant bit of a 64-bit length must be 0 (RFC 6455 §5.2).
            guard length >> 63 == 0 else { return .violation(Wire.protocolError) }
        }
        guard length < UInt64(Self.maximumMessageBytes) else {
            buffer.removeFirst(offset)
            discard(4 + length)  // no overflow: length < 2^63
            return .violation(Wire.messageTooBig)
        }
        let total = offset + 4 + Int(length)
        guard fill(total) else { return .endOfStream }
        let mask = Array(buffer[offset..<offset + 4])
        var payload = Array(buffer[offset + 4..<total])
        for index in payload.indices { payload[index] ^= mask[index % 4] }
        buffer.removeFirst(total)
        return .frame(Frame(isFinal: isFinal, opcode: opcode, payload: payload))
    }

    /// Reads and drops `count` bytes (the rest of an oversized frame), each read bounded by
    /// ``closeReplyWait``.
    private func discard(_ count: UInt64) {
        var remaining = count
        let fromBuffer = Int(min(UInt64(buffer.count), remaining))
        buffer.removeFirst(fromBuffer)
        remaining -= UInt64(fromBuffer)
        SocketIO.limitReceiveWait(fd, to: Self.closeReplyWait)
        while remaining > 0 {
            guard let bytes = SocketIO.receive(fd), !bytes.isEmpty else { return }
            if UInt64(bytes.count) > remaining {
                buffer = Array(bytes.dropFirst(Int(remaining)))
                return
            }
            remaining -= UInt64(bytes.count)
        }
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
        static let protocolError: UInt16 = 1002
        static let invalidPayload: UInt16 = 1007
        static let messageTooBig: UInt16 = 1009
    }
}
