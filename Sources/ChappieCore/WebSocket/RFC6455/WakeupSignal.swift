#if os(Linux)
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Wakes a connection's I/O thread out of `poll(2)`: a non-blocking socket pair whose reading end
/// sits in every poll. Any thread may ``signal()``; only the I/O thread drains. The descriptors
/// are closed when the last reference goes, so a signal never reaches a reused descriptor.
final class WakeupSignal: Sendable {
    /// The end the I/O thread polls for `POLLIN`.
    let readDescriptor: Int32
    private let writeDescriptor: Int32

    /// Opens the pair.
    ///
    /// - Throws: ``WebSocketError/network(_:)`` when the process is out of descriptors.
    init() throws(WebSocketError) {
        var pair: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &pair) == 0 else {
            throw .network("could not create a wakeup socket pair: \(String(cString: strerror(errno)))")
        }
        readDescriptor = pair[0]
        writeDescriptor = pair[1]
    }

    deinit {
        Glibc.close(readDescriptor)
        Glibc.close(writeDescriptor)
    }

    /// Makes the next (or the current) poll of the I/O thread return. Never blocks: when the pair
    /// is full, a wakeup is already pending.
    func signal() {
        var byte: UInt8 = 1
        _ = send(writeDescriptor, &byte, 1, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
    }

    /// Consumes every pending wakeup.
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ recv(readDescriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0 {}
    }
}
#endif
