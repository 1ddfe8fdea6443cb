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

    /// Disables Nagle's algorithm so each streamed event leaves at once (and, on Darwin, turns off
    /// `SIGPIPE` for the socket).
    static func disableNagle(_ fd: Int32) {
        SocketConstants.suppressSIGPIPE(fd)
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }
}
