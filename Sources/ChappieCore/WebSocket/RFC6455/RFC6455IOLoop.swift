#if os(Linux)
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The life of one connection on its own thread: resolve, connect (non-blocking, with the
/// connect deadline), TLS, the opening handshake, then frames until the close handshake or a
/// drop. Everything that can block or wait happens here, in `poll(2)` on the socket and the
/// core's wakeup signal, never on Swift's cooperative pool or a Dispatch worker (DESIGN §9).
///
/// One thread owns the socket, the TLS session and the compression streams, so none of them
/// needs a lock. The loop takes work from ``RFC6455ConnectionCore`` (messages to send, a close
/// request), writes what it can, and reads when the consumer keeps up; a protocol violation by the
/// server closes with its code (RFC 6455 §7.1.7), a drop without a close frame is reported as
/// 1006. After a close frame is sent the loop waits up to ``Plan/closeTimeout`` for the server to
/// answer and close the TCP connection (§7.1.1), then closes the socket.
final class RFC6455IOLoop {
    /// Everything the thread needs to open the connection.
    struct Plan: Sendable {
        /// Where to connect.
        var endpoint: WebSocketEndpoint
        /// The caller's handshake headers (checked; sent as given, never logged).
        var headers: [(name: String, value: String)]
        /// When the connection must be open (name resolution, TCP, TLS and handshake together).
        var deadline: ContinuousClock.Instant
        /// Where trusted certificates come from.
        var trust: WebSocketTrust
        /// The system libraries (OpenSSL required, zlib optional).
        var libraries: RFC6455WebSocketConnector.Libraries
        /// Whether to offer `permessage-deflate` (when zlib loads).
        var offersPerMessageDeflate: Bool
        /// The largest frame or message accepted, in bytes (compressed or not).
        var maximumMessageBytes: Int
        /// The largest handshake response head accepted, in bytes.
        var maximumHandshakeHeadBytes: Int
        /// How long to wait for the server's side of the close handshake.
        var closeTimeout: Duration
    }

    private let core: RFC6455ConnectionCore
    private let plan: Plan
    private var socket: TCPSocket?
    private var tls: TLSClientSession?
    private var codec: PerMessageDeflateCodec?
    private var decoder = WebSocketFrameDecoder()
    private var assembler = WebSocketMessageAssembler()

    private var outbound: [UInt8] = []
    private var outboundOffset = 0
    private var queuedBytes = 0
    private var writtenBytes = 0
    private var pendingSends: [(end: Int, id: UInt64)] = []

    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    private var tlsScratch = [UInt8](repeating: 0, count: 16 * 1024)

    private var readingPaused = false
    private var closeSent = false
    private var inputStopped = false
    private var peerFinished = false
    private var writingShut = false
    private var closeDeadline: ContinuousClock.Instant?

    /// A loop for `core` that will open `plan`.
    init(core: RFC6455ConnectionCore, plan: Plan) {
        self.core = core
        self.plan = plan
    }

    /// Runs the connection to its end; returns when the socket is closed.
    func run() {
        defer {
            socket?.close()
            socket = nil
            tls = nil
            codec = nil
            core.end(with: .closed(code: WebSocketCloseCode.abnormalClosure, reason: Wire.endedWithoutClose))
        }
        let response: WebSocketHandshakeResponse
        let leftover: [UInt8]
        do {
            (response, leftover) = try open()
        } catch {
            core.end(with: error)
            return
        }
        guard core.opened(responseHeaders: response.headers) else { return }
        process(leftover)
        exchangeFrames()
    }

    // MARK: Opening

    private func open() throws(WebSocketError) -> (WebSocketHandshakeResponse, [UInt8]) {
        let endpoint = plan.endpoint
        let openSSL: OpenSSLLibrary
        switch plan.libraries.openSSL() {
        case .success(let library): openSSL = library
        case .failure(let error): throw .unsupported("the WebSocket client needs OpenSSL 3 (Debian package libssl3): \(error.description)")
        }
        let zlib = plan.offersPerMessageDeflate ? try? plan.libraries.zlib().get() : nil
        let handshake = WebSocketHandshake()
        let request = try handshake.request(for: endpoint, headers: plan.headers, offersDeflate: zlib != nil)
        var addresses = try TCPSocket.resolve(host: endpoint.host, port: endpoint.port)
        try checkAbandoned()
        if !endpoint.isSecure {
            // Plain ws:// only ever reaches this machine, even when a name resolves elsewhere.
            addresses = addresses.filter(\.isLoopback)
            guard !addresses.isEmpty else { throw .unsupported("plain ws:// is allowed only to a loopback address; use wss://") }
        }
        var lastError = WebSocketError.network("could not connect")
        for (index, address) in addresses.enumerated() {
            // Each address gets an equal share of the time left, so an unreachable first address
            // (a blackholed IPv6 route) leaves time for the next.
            let remaining = ContinuousClock.now.duration(to: plan.deadline)
            let attemptDeadline = ContinuousClock.now + remaining / (addresses.count - index)
            do {
                socket = try connect(to: address, by: attemptDeadline)
                break
            } catch {
                if case .network = error { lastError = error } else { throw error }
            }
        }
        guard socket != nil else { throw lastError }
        if endpoint.isSecure {
            let session = try TLSClientSession(
                library: openSSL, host: endpoint.host, isAddressLiteral: endpoint.isAddressLiteral, trust: plan.trust)
            tls = session
            while true {
                let finished: Bool
                do {
                    finished = try session.handshake()
                } catch {
                    // Send OpenSSL's alert (bad certificate, …) so the server sees why, then fail.
                    appendRaw(session.takeCiphertext())
                    try? flush()
                    throw error
                }
                appendRaw(session.takeCiphertext())
                try flushWhileOpening()
                if finished { break }
                try readWhileOpening(decrypting: false) { _ in }
            }
        }
        try queue(request)
        try flushWhileOpening()
        var reader = WebSocketHandshakeResponseReader(maximumHeadBytes: plan.maximumHandshakeHeadBytes)
        var result: (response: WebSocketHandshakeResponse, leftover: [UInt8])?
        while result == nil {
            try readWhileOpening(decrypting: true) { bytes throws(WebSocketError) in result = try reader.feed(bytes) }
        }
        guard let (response, leftover) = result else { throw .network("no handshake response") }
        let expected = handshake.expectedAccept(sha1: openSSL.sha1)
        let deflate = try response.validate(expectedAccept: expected, offeredDeflate: zlib != nil)
        if let deflate, let zlib {
            do {
                codec = try PerMessageDeflateCodec(zlib: zlib, parameters: deflate)
            } catch {
                throw .network(error.description)
            }
        }
        decoder = WebSocketFrameDecoder(maximumPayloadBytes: plan.maximumMessageBytes, allowsCompressedFrames: codec != nil)
        assembler = WebSocketMessageAssembler(maximumMessageBytes: plan.maximumMessageBytes, inflater: codec)
        return (response, leftover)
    }

    private func connect(to address: TCPSocket.Address, by deadline: ContinuousClock.Instant) throws(WebSocketError) -> TCPSocket {
        let (candidate, inProgress) = try TCPSocket.startConnecting(to: address)
        guard inProgress else { return candidate }
        do throws(WebSocketError) {
            while true {
                let ready = try waitWhileOpening(on: candidate, for: Int16(POLLOUT), deadline: deadline)
                guard ready != 0 else { continue }
                if let code = candidate.connectionError() { throw .network("could not connect: \(String(cString: strerror(code)))") }
                return candidate
            }
        } catch {
            candidate.close()
            throw error
        }
    }

    /// Waits on `socket` for `events` within `deadline` (by default the connect deadline); 0 when
    /// only woken.
    private func waitWhileOpening(on socket: TCPSocket, for events: Int16, deadline: ContinuousClock.Instant? = nil) throws(WebSocketError) -> Int16 {
        let result = socket.wait(for: events, wakeup: core.wakeup, deadline: deadline ?? plan.deadline)
        if result.timedOut { throw .openTimedOut }
        if result.woken { try checkAbandoned() }
        return result.events
    }

    private func checkAbandoned() throws(WebSocketError) {
        if core.isAbandoned { throw .network(Wire.abandoned) }
    }

    private func flushWhileOpening() throws(WebSocketError) {
        guard let socket else { return }
        while outboundOffset < outbound.count {
            try flush()
            if outboundOffset < outbound.count { _ = try waitWhileOpening(on: socket, for: Int16(POLLOUT)) }
        }
    }

    /// Reads once (waiting as needed) and hands the plaintext to `consume`; during the TLS
    /// handshake (`decrypting` false) the ciphertext only goes to OpenSSL, so a verification
    /// failure surfaces from ``TLSClientSession/handshake()`` with its reason.
    private func readWhileOpening(decrypting: Bool, _ consume: ([UInt8]) throws(WebSocketError) -> Void) throws(WebSocketError) {
        guard let socket else { return }
        while true {
            let transfer = readBuffer.withUnsafeMutableBytes { socket.read(into: $0) }
            switch transfer {
            case .bytes(let count):
                var plaintext: [UInt8] = []
                if let tls {
                    readBuffer.withUnsafeBytes { tls.receiveCiphertext(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                    guard decrypting else { return }
                    if try tls.decrypt(appendingTo: &plaintext, scratch: &tlsScratch) {
                        throw .network("the server closed the connection during the opening handshake")
                    }
                    appendRaw(tls.takeCiphertext())
                    try flushWhileOpening()
                } else {
                    plaintext = Array(readBuffer[0..<count])
                }
                try consume(plaintext)
                return
            case .endOfStream:
                throw .network("the server closed the connection during the opening handshake")
            case .failed(let code):
                throw .network("the connection failed during the opening handshake: \(String(cString: strerror(code)))")
            case .wouldBlock:
                _ = try waitWhileOpening(on: socket, for: Int16(POLLIN))
            }
        }
    }

    // MARK: Frames

    private func exchangeFrames() {
        guard let socket else { return }
        while true {
            let work = core.takeWork()
            readingPaused = work.readingPaused
            for message in work.messages where !closeSent {
                sendMessage(message.payload, id: message.id)
            }
            if let code = work.closeCode, !closeSent { sendClose(code: code) }
            do {
                try flush()
            } catch {
                core.end(with: error)
                return
            }
            if closeSent && outboundOffset == outbound.count && !writingShut && tls == nil {
                // The close frame is out: FIN now, so the server sees the end at once.
                socket.shutdownWriting()
                writingShut = true
            }
            if peerFinished { return }
            var events: Int16 = 0
            if !readingPaused || closeSent { events |= Int16(POLLIN) }
            if outboundOffset < outbound.count { events |= Int16(POLLOUT) }
            let result = socket.wait(for: events, wakeup: core.wakeup, deadline: closeDeadline)
            if result.timedOut { return }
            if result.events & Int16(POLLHUP | POLLERR) != 0 {
                // Reported even while reading is paused: read to the end now, or poll would spin.
                readAvailable(from: socket, untilDrained: true)
            } else if result.events & Int16(POLLIN) != 0 {
                readAvailable(from: socket, untilDrained: false)
            }
        }
    }

    /// Reads until the socket has nothing more: at most a few buffers, so writes interleave, and
    /// none while the consumer is behind, unless `untilDrained` (the peer hung up or the socket
    /// failed: what is left is bounded by the kernel's buffer).
    private func readAvailable(from socket: TCPSocket, untilDrained: Bool) {
        var reads = 0
        while untilDrained || (reads < 8 && (!readingPaused || closeSent)) {
            reads += 1
            let transfer = readBuffer.withUnsafeMutableBytes { socket.read(into: $0) }
            switch transfer {
            case .bytes(let count):
                if let tls {
                    readBuffer.withUnsafeBytes { tls.receiveCiphertext(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                    var plaintext: [UInt8] = []
                    do {
                        let closedByPeer = try tls.decrypt(appendingTo: &plaintext, scratch: &tlsScratch)
                        appendRaw(tls.takeCiphertext())
                        process(plaintext)
                        if closedByPeer { return endOfStream() }
                    } catch {
                        core.end(with: error)
                        peerFinished = true
                        return
                    }
                } else {
                    readBuffer.withUnsafeBytes { process(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                }
            case .wouldBlock:
                return
            case .endOfStream:
                return endOfStream()
            case .failed(let code):
                let reason = "the connection failed: \(String(cString: strerror(code)))"
                core.end(with: .closed(code: WebSocketCloseCode.abnormalClosure, reason: reason))
                peerFinished = true
                return
            }
        }
    }

    private func endOfStream() {
        core.end(with: .closed(code: WebSocketCloseCode.abnormalClosure, reason: Wire.endedWithoutClose))
        peerFinished = true
    }

    private func process(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { process($0) }
    }

    private func process(_ bytes: UnsafeRawBufferPointer) {
        guard !inputStopped, !bytes.isEmpty else { return }
        decoder.feed(bytes)
        do throws(WebSocketProtocolViolation) {
            while !inputStopped, let frame = try decoder.nextFrame() {
                guard let event = try assembler.accept(frame) else { continue }
                handle(event)
            }
        } catch {
            inputStopped = true
            core.end(with: error.error)
            if !closeSent { sendClose(code: error.closeCode) }
        }
    }

    private func handle(_ event: WebSocketMessageAssembler.Event) {
        switch event {
        case .message(let message):
            guard !closeSent else { return }
            if core.deliver(message) { readingPaused = true }
        case .ping(let payload):
            // A server that pings but never reads gets no more pongs once a megabyte waits
            // (RFC 6455 §5.5.3 lets a client answer only the latest of several pings).
            guard !closeSent, outbound.count - outboundOffset < 1 << 20 else { return }
            queueFrame(WebSocketFrame(opcode: .pong, payload: payload))
        case .pong:
            return
        case .close(let code, let reason):
            inputStopped = true
            core.end(with: .closed(code: code ?? WebSocketCloseCode.noStatusReceived, reason: Redaction.clean(reason, maximumBytes: 123)))
            if !closeSent { sendClose(code: code) }
        }
    }

    // MARK: Writing

    private func sendMessage(_ payload: [UInt8], id: UInt64) {
        if let codec, let compressed = codec.deflate(payload) {
            queueFrame(WebSocketFrame(opcode: .text, payload: compressed, isCompressed: true))
        } else {
            queueFrame(WebSocketFrame(opcode: .text, payload: payload))
        }
        pendingSends.append((queuedBytes, id))
    }

    /// Queues a close frame with `code` (none when nil: an empty close frame) and starts the
    /// close timeout.
    private func sendClose(code: Int?) {
        closeSent = true
        var payload: [UInt8] = []
        if let code, WebSocketCloseCode.isValidOnTheWire(code) { payload = [UInt8(code >> 8), UInt8(code & 0xFF)] }
        queueFrame(WebSocketFrame(opcode: .close, payload: payload))
        closeDeadline = .now + plan.closeTimeout
    }

    private func queueFrame(_ frame: WebSocketFrame) {
        do {
            try queue(WebSocketFrameEncoder.encode(frame))
        } catch {
            core.end(with: error)
            peerFinished = true
        }
    }

    /// Queues plaintext, encrypted when TLS is on.
    private func queue(_ bytes: [UInt8]) throws(WebSocketError) {
        guard let tls else { return appendRaw(bytes) }
        try tls.encrypt(bytes)
        appendRaw(tls.takeCiphertext())
    }

    private func appendRaw(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if outboundOffset == outbound.count {
            outbound.removeAll(keepingCapacity: true)
            outboundOffset = 0
        } else if outboundOffset >= 1 << 20 && outboundOffset * 2 >= outbound.count {
            outbound.removeFirst(outboundOffset)
            outboundOffset = 0
        }
        outbound += bytes
        queuedBytes += bytes.count
    }

    /// Writes what the socket takes now; completes the sends whose bytes are all out.
    private func flush() throws(WebSocketError) {
        guard let socket else { return }
        while outboundOffset < outbound.count {
            let transfer = outbound.withUnsafeBytes { socket.write(UnsafeRawBufferPointer(rebasing: $0[outboundOffset...])) }
            switch transfer {
            case .bytes(let count):
                outboundOffset += count
                writtenBytes += count
            case .wouldBlock, .endOfStream:
                completeSends()
                return
            case .failed(let code):
                peerFinished = true
                throw .closed(code: WebSocketCloseCode.abnormalClosure, reason: "the connection failed: \(String(cString: strerror(code)))")
            }
        }
        completeSends()
    }

    private func completeSends() {
        while let first = pendingSends.first, first.end <= writtenBytes {
            pendingSends.removeFirst()
            core.sent(id: first.id)
        }
    }

    private enum Wire {
        static let endedWithoutClose = "the connection closed without a close frame"
        static let abandoned = "the connect was abandoned"
    }
}

/// The plan holds the caller's handshake headers, `Authorization` among them: it prints only
/// where it connects (STYLE §12).
extension RFC6455IOLoop.Plan: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The endpoint only; the headers are redacted.
    var description: String {
        "RFC6455IOLoop.Plan(\(endpoint.isSecure ? "wss" : "ws")://\(endpoint.hostHeader)\(endpoint.requestTarget), headers: [redacted])"
    }

    /// Same as ``description``.
    var debugDescription: String { description }

    /// The endpoint only; the headers are redacted.
    var customMirror: Mirror { Mirror(self, children: ["endpoint": endpoint, "headers": "[redacted]"]) }
}
#endif
