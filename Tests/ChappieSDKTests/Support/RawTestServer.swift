import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP server for transport tests that the emulator cannot play: it answers every
/// connection with fixed bytes (a redirect, say), or never answers at all. It records what
/// arrived. One thread accepts; each connection is read until its request head ends.
final class RawTestServer: @unchecked Sendable {
    /// What the server does with each connection.
    enum Behaviour: Sendable {
        /// Writes `response` after the request head, then closes.
        case answer(String)
        /// Accepts nothing: the kernel completes the TCP handshake, no byte ever comes back.
        case neverAccept
        /// Writes `head` after the request head, then `chunk` over and over until `limit` bytes
        /// of body were sent or the client closed the connection.
        case endlessBody(head: String, chunk: [UInt8], limit: Int)
        /// Writes `head` after the request head, then one space byte every `interval`
        /// microseconds until the client closes the connection (a trickling server).
        case drip(head: String, interval: UInt32)
    }

    /// The bound port.
    let port: Int
    private let listenFD: Int32
    private let lock = NSLock()
    private var heads: [String] = []
    private var accepted = 0
    private var sent = 0

    /// `http://127.0.0.1:PORT`.
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts a server with `behaviour` on a free loopback port.
    init(_ behaviour: Behaviour) throws {
        let listenFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listenFD = listenFD
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listenFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listenFD, 16) == 0 else {
            port = 0
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listenFD, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        if case .neverAccept = behaviour { return }
        let thread = Thread { [self] in acceptLoop(behaviour) }
        thread.start()
    }

    /// Request heads received so far (request line and headers).
    var receivedHeads: [String] { lock.withLock { heads } }
    /// Connections accepted so far.
    var connections: Int { lock.withLock { accepted } }
    /// Body bytes written so far (``Behaviour/endlessBody(head:chunk:limit:)``).
    var bodyBytesSent: Int { lock.withLock { sent } }

    /// Stops accepting.
    func stop() {
        shutdown(listenFD, Int32(SHUT_RDWR))
        close(listenFD)
    }

    private func acceptLoop(_ behaviour: Behaviour) {
        while true {
            let client = accept(listenFD, nil, nil)
            guard client >= 0 else { return }
            lock.withLock { accepted += 1 }
            var received = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !received.containsHeadEnd {
                let count = read(client, &buffer, buffer.count)
                if count <= 0 { break }
                received += buffer[..<count]
            }
            lock.withLock { heads.append(String(decoding: received, as: UTF8.self)) }
            switch behaviour {
            case .answer(let response):
                _ = write(Array(response.utf8), to: client)
            case .endlessBody(let head, let chunk, let limit):
                guard write(Array(head.utf8), to: client) else { break }
                var total = 0
                while total < limit, write(chunk, to: client) {
                    total += chunk.count
                    lock.withLock { sent = total }
                }
            case .drip(let head, let interval):
                guard write(Array(head.utf8), to: client) else { break }
                while write([0x20], to: client) { usleep(interval) }
            case .neverAccept:
                break
            }
            close(client)
        }
    }

    /// Writes all of `bytes`; false when the peer closed the connection.
    private func write(_ bytes: [UInt8], to client: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return false }
            offset += count
        }
        return true
    }
}

private extension [UInt8] {
    var containsHeadEnd: Bool {
        count >= 4 && (0...(count - 4)).contains { self[$0] == 13 && self[$0 + 1] == 10 && self[$0 + 2] == 13 && self[$0 + 3] == 10 }
    }
}
