#if os(Linux)
@testable import ChappieTransport
import Foundation
import Glibc

/// A hostile (or merely scripted) WebSocket server for one test: it listens on a free loopback
/// port and runs `script` on a thread of its own, with blocking socket calls, for each accepted
/// connection. The script reports what it saw through ``RawConnection/report(_:)``; the test
/// awaits the reports in order with ``next()``, so nothing waits on a clock.
final class RawWebSocketPeer: Sendable {
    let port: Int
    private let listenDescriptor: Int32
    private let reports: AsyncStream<String>
    private let reporter: AsyncStream<String>.Continuation
    private let iterator: LockedBox<AsyncStream<String>.Iterator>
    private let accepted = LockedBox(0)
    private let listenerClosed = LockedBox(false)

    private init(script: @escaping @Sendable (RawConnection) -> Void) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 8) == 0 else { close(descriptor); throw POSIXError(.EADDRINUSE) }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        port = Int(UInt16(bigEndian: actual.sin_port))
        listenDescriptor = descriptor
        (reports, reporter) = AsyncStream.makeStream(of: String.self)
        iterator = LockedBox(reports.makeAsyncIterator())
        let reporter = self.reporter
        let accepted = self.accepted
        let listenerClosed = self.listenerClosed
        let thread = Thread {
            while true {
                let connection = accept(descriptor, nil, nil)
                guard connection >= 0 else { break }
                accepted.withLock { $0 += 1 }
                script(RawConnection(descriptor: connection, reporter: reporter))
                close(connection)
            }
            // Closed here, not in stop(): a descriptor number closed while this loop may still
            // call accept on it could be reused by another test's socket.
            listenerClosed.withLock { closed in
                closed = true
                close(descriptor)
            }
            reporter.finish()
        }
        thread.start()
    }

    /// Starts a peer, runs `body` with it, and always stops it.
    static func with<Result>(
        _ script: @escaping @Sendable (RawConnection) -> Void,
        _ body: (RawWebSocketPeer) async throws -> Result
    ) async throws -> Result {
        let peer = try RawWebSocketPeer(script: script)
        defer { peer.stop() }
        return try await body(peer)
    }

    /// `ws://127.0.0.1:<port>/` plus `path`.
    var url: URL { URL(string: "ws://127.0.0.1:\(port)/socket")! }

    /// Connections accepted so far.
    var acceptedCount: Int { accepted.withLock { $0 } }

    /// The next report of the script, nil once the peer stopped.
    func next() async -> String? {
        var iterator = self.iterator.withLock { $0 }
        let report = await iterator.next()
        self.iterator.withLock { $0 = iterator }
        return report
    }

    /// Stops accepting: `accept` in progress, or the next one, fails, and the peer's thread
    /// closes the listening socket.
    func stop() {
        listenerClosed.withLock { closed in
            if !closed { shutdown(listenDescriptor, Int32(SHUT_RDWR)) }
        }
    }
}

/// One accepted connection, driven by blocking calls on the peer's thread.
final class RawConnection: @unchecked Sendable {
    // Unchecked: used only on the peer's thread that created it.
    let descriptor: Int32
    private let reporter: AsyncStream<String>.Continuation
    private var buffer: [UInt8] = []

    init(descriptor: Int32, reporter: AsyncStream<String>.Continuation) {
        self.descriptor = descriptor
        self.reporter = reporter
    }

    /// Tells the test something.
    func report(_ text: String) { reporter.yield(text) }

    /// Reads the request head; returns its lines (request line first).
    func readRequestHead() -> [String] {
        while true {
            if let end = find([13, 10, 13, 10]) {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                return head.components(separatedBy: "\r\n")
            }
            guard fill() else { return [] }
        }
    }

    /// The value of header `name` in `head`.
    static func header(_ name: String, in head: [String]) -> String? {
        head.dropFirst().first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
    }

    /// Reads the request and answers 101 with a correct accept (or `accept`), plus `extraHeaders`.
    @discardableResult
    func upgrade(accept: String? = nil, extraHeaders: [String] = []) -> [String] {
        let head = readRequestHead()
        let key = Self.header("Sec-WebSocket-Key", in: head) ?? ""
        let value = accept ?? WebSocketHandshake(key: key).expectedAccept(sha1: { try! OpenSSLLibrary.shared.get().sha1($0) })
        let lines = ["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: \(value)"] + extraHeaders
        write(Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8))
        return head
    }

    /// Writes raw bytes.
    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            offset += sent
        }
    }

    /// Writes a server frame (unmasked unless `maskingKey` is given).
    func writeFrame(opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, maskingKey: [UInt8]? = nil, claimedLength: Int? = nil) {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | rsv | opcode]
        let length = claimedLength ?? payload.count
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        switch length {
        case 0...125: frame.append(maskBit | UInt8(length))
        case 126...0xFFFF: frame += [maskBit | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
        default: frame += [maskBit | 127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(length) >> UInt64($0 * 8)) }
        }
        var body = payload
        if let maskingKey {
            frame += maskingKey
            for index in body.indices { body[index] ^= maskingKey[index % 4] }
        }
        write(frame + body)
    }

    /// Reads one client frame: opcode, unmasked payload, whether it was masked, its key, and RSV1.
    func readFrame() -> (opcode: UInt8, payload: [UInt8], masked: Bool, key: [UInt8], rsv1: Bool)? {
        guard fill(atLeast: 2) else { return nil }
        let opcode = buffer[0] & 0x0F
        let rsv1 = buffer[0] & 0x40 != 0
        let masked = buffer[1] & 0x80 != 0
        var length = Int(buffer[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard fill(atLeast: 4) else { return nil }
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            offset = 4
        } else if length == 127 {
            guard fill(atLeast: 10) else { return nil }
            length = (2..<10).reduce(0) { $0 << 8 | Int(buffer[$1]) }
            offset = 10
        }
        let keyLength = masked ? 4 : 0
        guard fill(atLeast: offset + keyLength + length) else { return nil }
        let key = Array(buffer[offset..<offset + keyLength])
        var payload = Array(buffer[(offset + keyLength)..<(offset + keyLength + length)])
        if masked { for index in payload.indices { payload[index] ^= key[index % 4] } }
        buffer.removeFirst(offset + keyLength + length)
        return (opcode, payload, masked, key, rsv1)
    }

    /// Reads client frames until a close frame; reports `close <code>` (or `close none`), then
    /// whether the client then ended the TCP stream (`eof`).
    func expectClose() {
        while let frame = readFrame() {
            guard frame.opcode == 8 else { continue }
            let code = frame.payload.count >= 2 ? "\(Int(frame.payload[0]) << 8 | Int(frame.payload[1]))" : "none"
            report("close \(code)")
            report(fill() ? "more data" : "eof")
            return
        }
        report("no close frame")
    }

    /// Ends the connection with a TCP reset (SO_LINGER 0).
    func reset() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    /// Waits until the client closes the TCP connection (reads and drops data).
    func waitForEndOfStream() {
        buffer.removeAll()
        while fill() { buffer.removeAll() }
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for index in 0...(buffer.count - pattern.count) where Array(buffer[index..<index + pattern.count]) == pattern { return index }
        return nil
    }

    private func fill(atLeast count: Int) -> Bool {
        while buffer.count < count { guard fill() else { return false } }
        return true
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer += chunk[0..<count]
        return true
    }
}
#endif
