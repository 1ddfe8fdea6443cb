#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Blocking socket reads and writes on a connected TCP socket.
///
/// Writes use `MSG_NOSIGNAL` so that writing to a socket the peer already closed returns `EPIPE`
/// instead of raising `SIGPIPE`, which would kill the whole (test) process (DESIGN §9).
enum SocketIO {
    /// Writes every byte of `bytes`; false when the peer is gone or the socket failed.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBufferPointer { buffer in
                send(fd, buffer.baseAddress! + offset, buffer.count - offset, SocketConstants.sendFlags)
            }
            if sent < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }

    /// Reads up to `maximumBytes`; an empty array means the peer closed, nil means an error.
    static func receive(_ fd: Int32, maximumBytes: Int = 65_536) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: maximumBytes)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, maximumBytes, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            return Array(buffer[0..<count])
        }
    }

    /// Blocks until the peer closes the connection or the socket is shut down locally; any bytes
    /// the peer sends meanwhile are discarded. Used to hold a stalled stream open.
    static func waitUntilClosed(_ fd: Int32) {
        while let bytes = receive(fd, maximumBytes: 4096), !bytes.isEmpty {}
    }

    /// Blocks until `fd` hangs up or fails (`poll(2)` asking for no event, so only `POLLHUP`,
    /// `POLLERR` or `POLLNVAL` end it), reading nothing: a reset by the peer, or a local
    /// `shutdown(2)` of both directions (the emulator stopping).
    static func waitUntilHungUp(_ fd: Int32) {
        while true {
            var descriptor = pollfd(fd: fd, events: 0, revents: 0)
            if poll(&descriptor, 1, -1) < 0, errno == EINTR { continue }
            return
        }
    }

    /// Whether the peer has closed its side (EOF) or reset the connection, checked without
    /// blocking and without consuming any byte (`recv(2)` with `MSG_PEEK | MSG_DONTWAIT`). A client
    /// that only half-closes (`shutdown(SHUT_WR)`) while still reading also counts as gone.
    static func peerHasClosed(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let flags = Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)
        while true {
            let count = recv(fd, &byte, 1, flags)
            if count == 0 { return true }
            if count > 0 { return false }
            if errno == EINTR { continue }
            return errno != EAGAIN && errno != EWOULDBLOCK
        }
    }

    /// Waits up to `duration` for the peer to close the connection; true as soon as it has
    /// (`poll(2)` for readability, then ``peerHasClosed(_:)``). Bytes the peer sends meanwhile are
    /// left unread; the rest of the wait is then a plain pause.
    static func peerCloses(_ fd: Int32, within duration: Duration) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + duration
        while true {
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else { return peerHasClosed(fd) }
            switch waitReadable(fd, within: remaining) {
            case .failed: return true
            case .timedOut: return false
            case .readable:
                if peerHasClosed(fd) { return true }
                ThreadPause.pause(clock.now.duration(to: deadline))
                return false
            }
        }
    }

    /// What ``waitReadable(_:within:)`` saw.
    enum Readiness {
        /// Bytes (or EOF) can be read without blocking.
        case readable
        /// Nothing arrived in time.
        case timedOut
        /// `poll(2)` failed.
        case failed
    }

    /// Blocks up to `duration` (rounded up to whole milliseconds; zero polls once) until `fd` is
    /// readable.
    static func waitReadable(_ fd: Int32, within duration: Duration) -> Readiness {
        let (seconds, attoseconds) = duration.components
        let milliseconds = max(0, seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        while true {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let result = poll(&descriptor, 1, Int32(clamping: milliseconds))
            if result < 0 {
                if errno == EINTR { continue }
                return .failed
            }
            return result == 0 ? .timedOut : .readable
        }
    }

    /// Makes the next `close(2)` of `fd` send a TCP RST instead of a FIN (`SO_LINGER` with a zero
    /// timeout): the peer sees `ECONNRESET`, a WebSocket client an abnormal closure (1006).
    static func resetOnClose(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Makes blocking reads on `fd` give up after `duration` (`SO_RCVTIMEO`), so a wait for a
    /// peer's reply is bounded.
    static func limitReceiveWait(_ fd: Int32, to duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: .init(attoseconds / 1_000_000_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Disables Nagle's algorithm so each streamed event leaves at once (and, on Darwin, turns off
    /// `SIGPIPE` for the socket).
    static func disableNagle(_ fd: Int32) {
        SocketConstants.suppressSIGPIPE(fd)
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }
}
