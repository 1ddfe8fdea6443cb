#if os(Linux)
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A non-blocking TCP socket (IPv4 or IPv6) and the system calls a connection's I/O thread makes
/// on it. Nothing here blocks except name resolution (`getaddrinfo`), which only the I/O thread
/// calls. Writes pass `MSG_NOSIGNAL`: a peer that went away yields `EPIPE`, never `SIGPIPE`
/// (DESIGN §9).
struct TCPSocket {
    /// One resolved address (`sockaddr_in` or `sockaddr_in6` bytes).
    struct Address: Sendable {
        /// `AF_INET` or `AF_INET6`.
        var family: Int32
        /// The socket address bytes.
        var bytes: [UInt8]

        /// Whether this is a loopback address: 127.0.0.0/8, `::1`, or `::ffff:127.x.x.x`.
        var isLoopback: Bool {
            switch family {
            case AF_INET: return bytes.count >= 8 && bytes[4] == 127
            case AF_INET6:
                guard bytes.count >= 24 else { return false }
                let address = bytes[8..<24]
                if address.dropLast().allSatisfy({ $0 == 0 }) && address.last == 1 { return true }
                return address.prefix(10).allSatisfy { $0 == 0 } && address.dropFirst(10).prefix(2).allSatisfy { $0 == 0xFF }
                    && address[address.startIndex + 12] == 127
            default: return false
            }
        }
    }

    /// What a read or a write did.
    enum Transfer: Equatable {
        /// This many bytes moved (at least one).
        case bytes(Int)
        /// Nothing moved now; wait for readiness.
        case wouldBlock
        /// The peer closed its side (reads only).
        case endOfStream
        /// The socket failed with this `errno` (`ECONNRESET`, `EPIPE`, …).
        case failed(Int32)
    }

    /// The descriptor (non-blocking, close-on-exec).
    let descriptor: Int32

    /// Resolves `host` (a name or an address literal) for TCP on `port`. Blocks for as long as the
    /// system resolver takes: call it on the I/O thread only.
    ///
    /// - Throws: ``WebSocketError/network(_:)`` with the resolver's message.
    static func resolve(host: String, port: Int) throws(WebSocketError) -> [Address] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else {
            throw .network("could not resolve the WebSocket host: \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var addresses: [Address] = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ai_addr, current.pointee.ai_family == AF_INET || current.pointee.ai_family == AF_INET6 {
                let bytes = Array(UnsafeRawBufferPointer(start: address, count: Int(current.pointee.ai_addrlen)))
                addresses.append(Address(family: current.pointee.ai_family, bytes: bytes))
            }
            entry = current.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw .network("the WebSocket host has no IPv4 or IPv6 address") }
        return addresses
    }

    /// Opens a socket and starts connecting to `address`; returns the socket and whether the
    /// connection is still in progress (wait for `POLLOUT`, then ``connectionError()``).
    ///
    /// - Throws: ``WebSocketError/network(_:)`` when the socket cannot be created or the connect
    ///   fails at once.
    static func startConnecting(to address: Address) throws(WebSocketError) -> (socket: TCPSocket, inProgress: Bool) {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = socket(address.family, type, Int32(IPPROTO_TCP))
        guard descriptor >= 0 else { throw .network("could not create a socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let result = address.bytes.withUnsafeBytes { bytes in
            Glibc.connect(descriptor, bytes.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(bytes.count))
        }
        let code = errno
        if result == 0 { return (TCPSocket(descriptor: descriptor), false) }
        if code == EINPROGRESS || code == EINTR { return (TCPSocket(descriptor: descriptor), true) }
        Glibc.close(descriptor)
        throw .network("could not connect: \(String(cString: strerror(code)))")
    }

    /// The outcome of a non-blocking connect once the socket is writable: nil when connected,
    /// else the `errno` it failed with (`SO_ERROR`).
    func connectionError() -> Int32? {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return errno }
        return error == 0 ? nil : error
    }

    /// Reads into `buffer`.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Transfer {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 { return .bytes(count) }
            if count == 0 { return .endOfStream }
            let code = errno
            if code == EINTR { continue }
            return code == EAGAIN || code == EWOULDBLOCK ? .wouldBlock : .failed(code)
        }
    }

    /// Writes from `bytes` (possibly only a part).
    func write(_ bytes: UnsafeRawBufferPointer) -> Transfer {
        while true {
            let count = send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            if count >= 0 { return count == 0 ? .wouldBlock : .bytes(count) }
            let code = errno
            if code == EINTR { continue }
            return code == EAGAIN || code == EWOULDBLOCK ? .wouldBlock : .failed(code)
        }
    }

    /// Sends FIN: the peer reads the end of the stream; reading here goes on.
    func shutdownWriting() {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Closes the descriptor.
    func close() {
        _ = Glibc.close(descriptor)
    }

    /// Waits until the socket has `events` (`POLLIN`/`POLLOUT`), `wakeup` is signalled, or
    /// `deadline` passes (nil = no deadline). Returns the socket's `revents` (0 when it was not the
    /// socket that woke the wait) and whether the deadline passed.
    func wait(for events: Int16, wakeup: WakeupSignal, deadline: ContinuousClock.Instant?) -> (events: Int16, woken: Bool, timedOut: Bool) {
        var descriptors = [
            pollfd(fd: descriptor, events: events, revents: 0),
            pollfd(fd: wakeup.readDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let remaining = ContinuousClock.now.duration(to: deadline)
                if remaining <= .zero { return (0, false, true) }
                let (seconds, attoseconds) = remaining.components
                let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
                timeout = Int32(clamping: milliseconds)
            }
            let ready = poll(&descriptors, 2, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                return (Int16(POLLERR), false, false)
            }
            if ready == 0 {
                if deadline != nil { continue }  // re-check the clock: poll may return a little early
                return (0, false, false)
            }
            let woken = descriptors[1].revents != 0
            if woken { wakeup.drain() }
            return (descriptors[0].revents, woken, false)
        }
    }
}
#endif
