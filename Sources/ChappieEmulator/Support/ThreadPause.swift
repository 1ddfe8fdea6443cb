#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Pauses the calling socket thread (never a cooperative-pool thread) for slow-drip faults.
enum ThreadPause {
    /// Blocks the current thread for `duration`, resuming after signals.
    static func pause(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var remaining = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var left = timespec()
        while nanosleep(&remaining, &left) != 0, errno == EINTR { remaining = left }
    }
}
