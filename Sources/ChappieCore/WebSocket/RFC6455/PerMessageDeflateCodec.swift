#if os(Linux)
import Foundation

/// Compresses and decompresses messages for `permessage-deflate` (RFC 7692 §7.2) with raw deflate
/// streams from the system zlib (``ZlibLibrary``, window bits negative = no zlib header).
///
/// Sending: deflate with `Z_SYNC_FLUSH`, then drop the `00 00 FF FF` tail (§7.2.1); with
/// `client_no_context_takeover` the compressor is reset after each message. Receiving: append the
/// tail, inflate with `Z_SYNC_FLUSH` into at most the message limit (a decompression bomb is
/// refused with 1009 as soon as the output passes it); with `server_no_context_takeover` the
/// decompressor is reset after each message. Used by one connection's I/O thread only.
final class PerMessageDeflateCodec: WebSocketMessageInflating {
    private let zlib: ZlibLibrary
    private let parameters: PerMessageDeflateParameters
    private let inflateStream: UnsafeMutablePointer<ZStream>
    private let deflateStream: UnsafeMutablePointer<ZStream>?

    /// Opens the streams for `parameters`.
    ///
    /// - Throws: ``SystemLibrary/LoadError`` when zlib refuses to initialise a stream.
    init(zlib: ZlibLibrary, parameters: PerMessageDeflateParameters) throws(SystemLibrary.LoadError) {
        self.zlib = zlib
        self.parameters = parameters
        let version = zlib.version()
        let size = Int32(MemoryLayout<ZStream>.size)
        let inflateStream = UnsafeMutablePointer<ZStream>.allocate(capacity: 1)
        inflateStream.initialize(to: ZStream())
        // 15 reads any window the server may use (8-15).
        guard zlib.inflateInit(UnsafeMutableRawPointer(inflateStream), -15, version, size) == ZlibLibrary.Constant.ok else {
            inflateStream.deallocate()
            throw SystemLibrary.LoadError(description: "zlib could not start an inflate stream")
        }
        self.inflateStream = inflateStream
        guard parameters.compressesOutgoingMessages else {
            deflateStream = nil
            return
        }
        let deflateStream = UnsafeMutablePointer<ZStream>.allocate(capacity: 1)
        deflateStream.initialize(to: ZStream())
        let status = zlib.deflateInit(
            UnsafeMutableRawPointer(deflateStream), Wire.level, ZlibLibrary.Constant.deflated, Int32(-parameters.clientMaxWindowBits),
            Wire.memoryLevel,
            ZlibLibrary.Constant.defaultStrategy, version, size)
        guard status == ZlibLibrary.Constant.ok else {
            deflateStream.deallocate()
            _ = zlib.inflateEnd(UnsafeMutableRawPointer(inflateStream))
            inflateStream.deallocate()
            throw SystemLibrary.LoadError(description: "zlib could not start a deflate stream")
        }
        self.deflateStream = deflateStream
    }

    deinit {
        _ = zlib.inflateEnd(UnsafeMutableRawPointer(inflateStream))
        inflateStream.deallocate()
        if let deflateStream {
            _ = zlib.deflateEnd(UnsafeMutableRawPointer(deflateStream))
            deflateStream.deallocate()
        }
    }

    /// Whether ``deflate(_:)`` compresses (false when the server limited the client's window to
    /// 8 bits, which zlib cannot honour).
    var compressesOutgoingMessages: Bool { deflateStream != nil }

    /// The compressed payload of one message, without the `00 00 FF FF` tail; nil when sending
    /// compressed is off or zlib failed (send the message uncompressed then).
    func deflate(_ message: [UInt8]) -> [UInt8]? {
        guard let stream = deflateStream else { return nil }
        defer { if parameters.clientNoContextTakeover { _ = zlib.deflateReset(UnsafeMutableRawPointer(stream)) } }
        var output: [UInt8] = []
        output.reserveCapacity(message.count / 2 + 64)
        var chunk = [UInt8](repeating: 0, count: max(1024, min(message.count + 64, Wire.chunkBytes)))
        let completed: Bool = message.withUnsafeBufferPointer { input in
            stream.pointee.nextIn = input.baseAddress
            stream.pointee.availIn = UInt32(input.count)
            defer { stream.pointee.nextIn = nil }
            while true {
                let (status, produced, outputFull) = chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.pointee.nextOut = buffer.baseAddress
                    stream.pointee.availOut = UInt32(buffer.count)
                    let status = zlib.deflate(UnsafeMutableRawPointer(stream), ZlibLibrary.Constant.syncFlush)
                    stream.pointee.nextOut = nil
                    return (status, buffer.count - Int(stream.pointee.availOut), stream.pointee.availOut == 0)
                }
                guard status == ZlibLibrary.Constant.ok || status == ZlibLibrary.Constant.bufferError else { return false }
                output += chunk[0..<produced]
                // Z_SYNC_FLUSH is complete once deflate leaves room in the output buffer.
                if !outputFull && stream.pointee.availIn == 0 { return true }
            }
        }
        guard completed, output.count >= 4, output.suffix(4) == Wire.tail[...] else { return nil }
        return Array(output.dropLast(4))
    }

    /// Inflates one message's compressed payload (the tail is appended here).
    ///
    /// - Throws: ``WebSocketProtocolViolation``: 1009 once the output passes `maximumBytes`,
    ///   1007 for data that is not valid deflate.
    func inflate(_ payload: [UInt8], maximumBytes: Int) throws(WebSocketProtocolViolation) -> [UInt8] {
        let stream = inflateStream
        var input = payload
        input += Wire.tail
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: Wire.chunkBytes)
        var failure: WebSocketProtocolViolation?
        input.withUnsafeBufferPointer { source in
            stream.pointee.nextIn = source.baseAddress
            stream.pointee.availIn = UInt32(source.count)
            defer { stream.pointee.nextIn = nil }
            while true {
                let (status, produced, outputFull) = chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.pointee.nextOut = buffer.baseAddress
                    stream.pointee.availOut = UInt32(buffer.count)
                    let status = zlib.inflate(UnsafeMutableRawPointer(stream), ZlibLibrary.Constant.syncFlush)
                    stream.pointee.nextOut = nil
                    return (status, buffer.count - Int(stream.pointee.availOut), stream.pointee.availOut == 0)
                }
                guard status == ZlibLibrary.Constant.ok || status == ZlibLibrary.Constant.streamEnd
                    || status == ZlibLibrary.Constant.bufferError
                else {
                    failure = .invalidPayload("a compressed message that is not valid deflate data")
                    _ = zlib.inflateReset(UnsafeMutableRawPointer(stream))
                    return
                }
                guard output.count + produced <= maximumBytes else {
                    failure = .tooBig("a compressed message inflates past the limit of \(maximumBytes) bytes")
                    _ = zlib.inflateReset(UnsafeMutableRawPointer(stream))
                    return
                }
                output += chunk[0..<produced]
                if status == ZlibLibrary.Constant.streamEnd {
                    // The server ended its deflate stream (BFINAL); the next message starts a new one.
                    _ = zlib.inflateReset(UnsafeMutableRawPointer(stream))
                    return
                }
                if !outputFull && stream.pointee.availIn == 0 { return }
                if status == ZlibLibrary.Constant.bufferError && !outputFull {
                    failure = .invalidPayload("a compressed message that is not valid deflate data")
                    _ = zlib.inflateReset(UnsafeMutableRawPointer(stream))
                    return
                }
            }
        }
        if let failure { throw failure }
        if parameters.serverNoContextTakeover { _ = zlib.inflateReset(UnsafeMutableRawPointer(stream)) }
        return output
    }

    private enum Wire {
        /// The empty stored block a sync flush ends with (RFC 7692 §7.2.1).
        static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]
        static let level: Int32 = 6
        static let memoryLevel: Int32 = 8
        static let chunkBytes = 64 * 1024
    }
}
#endif
