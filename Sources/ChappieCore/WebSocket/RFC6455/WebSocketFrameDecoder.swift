/// Turns the bytes a server sends into frames (RFC 6455 §5.2): a pure, synchronous state
/// machine with no I/O, fed chunks of any size (chunk boundaries mean nothing).
///
/// It refuses, with the close code RFC 6455 §7.4.1 prescribes:
/// * a masked frame (servers must not mask, §5.1), reserved bits without an extension that
///   defines them (RSV1 only on the first frame of a data message, and only with
///   `permessage-deflate`, RFC 7692 §6), a reserved opcode, a control frame that is fragmented or
///   longer than 125 bytes (§5.5), a 64-bit length with its high bit set → 1002;
/// * a payload longer than `maximumPayloadBytes` → 1009, as soon as the header is read.
///
/// Consumed bytes are dropped once per ``feed(_:)``, so a chunk of many small frames costs one
/// copy, not one per frame.
struct WebSocketFrameDecoder {
    /// The largest payload accepted, in bytes.
    let maximumPayloadBytes: Int
    /// Whether RSV1 may be set (on the first frame of a data message): `permessage-deflate` was
    /// negotiated.
    let allowsCompressedFrames: Bool

    private var buffer: [UInt8] = []
    private var start = 0
    private var failure: WebSocketProtocolViolation?

    /// A decoder refusing payloads over `maximumPayloadBytes` bytes; RSV1 is allowed only when
    /// `allowsCompressedFrames`.
    init(maximumPayloadBytes: Int = WebSocketLimits.maximumFrameBytes, allowsCompressedFrames: Bool = false) {
        self.maximumPayloadBytes = maximumPayloadBytes
        self.allowsCompressedFrames = allowsCompressedFrames
    }

    /// The number of bytes received but not yet returned as frames.
    var bufferedByteCount: Int { buffer.count - start }

    /// Appends received bytes.
    mutating func feed<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Appends received bytes from a raw buffer.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, or nil when more bytes are needed.
    ///
    /// - Throws: ``WebSocketProtocolViolation`` for a frame the server must not send; the decoder
    ///   then stays failed and throws the same violation again.
    mutating func nextFrame() throws(WebSocketProtocolViolation) -> WebSocketFrame? {
        if let failure { throw failure }
        do {
            return try decode()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func decode() throws(WebSocketProtocolViolation) -> WebSocketFrame? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        let first = buffer[start], second = buffer[start + 1]
        let opcode = WebSocketFrame.Opcode(rawValue: first & 0x0F)
        let isFinal = first & 0x80 != 0
        let isCompressed = first & 0x40 != 0
        guard first & 0x30 == 0 else { throw .protocolError("reserved bits RSV2/RSV3 set without an extension") }
        guard opcode.isKnown else { throw .protocolError("reserved opcode \(opcode.rawValue)") }
        if isCompressed {
            guard allowsCompressedFrames else { throw .protocolError("RSV1 set without permessage-deflate") }
            guard opcode == .text || opcode == .binary else {
                throw .protocolError("RSV1 set on a control or continuation frame")
            }
        }
        let shortLength = Int(second & 0x7F)
        if opcode.isControl {
            guard isFinal else { throw .protocolError("fragmented control frame") }
            guard shortLength <= 125 else { throw .protocolError("control frame longer than 125 bytes") }
        }
        guard second & 0x80 == 0 else { throw .protocolError("masked frame from the server") }
        var headerLength = 2
        var length = UInt64(shortLength)
        if shortLength == 126 {
            headerLength = 4
            guard available >= headerLength else { return nil }
            length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
        } else if shortLength == 127 {
            headerLength = 10
            guard available >= headerLength else { return nil }
            length = (2..<10).reduce(UInt64(0)) { $0 << 8 | UInt64(buffer[start + $1]) }
            guard length & (1 << 63) == 0 else { throw .protocolError("64-bit payload length with the high bit set") }
        }
        guard length <= UInt64(maximumPayloadBytes) else {
            throw .tooBig("a frame of \(length) bytes exceeds the limit of \(maximumPayloadBytes) bytes")
        }
        let total = headerLength + Int(length)
        guard available >= total else { return nil }
        let payload = Array(buffer[(start + headerLength)..<(start + total)])
        start += total
        return WebSocketFrame(opcode: opcode, payload: payload, isFinal: isFinal, isCompressed: isCompressed)
    }

    private mutating func compact() {
        guard start > 0 else { return }
        buffer.removeSubrange(0..<start)
        start = 0
    }
}
