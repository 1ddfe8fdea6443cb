#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few socket constants whose spelling differs between Glibc and Darwin.
enum SocketConstants {
    /// `SOCK_STREAM` as the `Int32` that `socket(2)` takes.
    static var streamType: Int32 {
        #if canImport(Glibc)
        Int32(SOCK_STREAM.rawValue)
        #else
        SOCK_STREAM
        #endif
    }

    /// Flags for `send(2)`: `MSG_NOSIGNAL` on Linux; on Darwin `SO_NOSIGPIPE` is set per socket
    /// instead (see ``suppressSIGPIPE(_:)``).
    static var sendFlags: Int32 {
        #if canImport(Glibc)
        Int32(MSG_NOSIGNAL)
        #else
        0
        #endif
    }

    /// `SHUT_RDWR` as `Int32`.
    static var shutdownBoth: Int32 { Int32(SHUT_RDWR) }

    /// On Darwin, sets `SO_NOSIGPIPE` so writes to a closed peer return `EPIPE` instead of raising
    /// `SIGPIPE`; a no-op on Linux, where every send passes `MSG_NOSIGNAL`.
    static func suppressSIGPIPE(_ fd: Int32) {
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }
}
