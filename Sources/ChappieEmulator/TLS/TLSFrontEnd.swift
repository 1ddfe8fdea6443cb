import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TLS-terminating front end for the emulator: a second loopback listener that accepts TLS
/// connections (OpenSSL 3 loaded at run time, ``TLSServerLibrary``) with a server certificate, and
/// relays each decrypted connection byte for byte to the emulator's plain port, so every endpoint
/// (HTTP, SSE, the WebSocket upgrade) is served over `https`/`wss` too. Requests arrive with the
/// front end's `Host`, which the emulator accepts (its guard checks the host name only).
///
/// One thread per connection; `shutdown()` closes the listening socket and every connection and
/// returns once every thread has finished.
final class TLSFrontEnd: Sendable {
    /// Why the front end could not start.
    enum StartError: Error, Sendable, Equatable {
        /// `libssl.so.3` (OpenSSL 3) could not be loaded.
        case libraryUnavailable
        /// The certificate chain or key file could not be used (the file path).
        case certificate(String)
        /// A socket call failed with this `errno`.
        case socket(errno: Int32)
    }

    private struct State {
        var stopping = false
        var connections = Set<Int32>()
    }

    /// The bound port.
    let port: Int
    private let listenFD: Int32
    private let backendPort: Int
    private let library: TLSServerLibrary
    private let context: ContextBox
    private let state = LockedBox(State())
    private let threads = DispatchGroup()

    /// The OpenSSL context, freed with the front end.
    private final class ContextBox: @unchecked Sendable {
        // Written once in init, then only read: SSL_CTX is safe to share across threads for SSL_new.
        let pointer: OpaquePointer
        let free: TLSServerLibrary.Free
        init(pointer: OpaquePointer, free: TLSServerLibrary.Free) {
            self.pointer = pointer
            self.free = free
        }
        deinit { free(pointer) }
    }

    /// Binds `127.0.0.1:0` and relays TLS connections to `127.0.0.1:backendPort`, presenting the
    /// certificate chain `certificateFile` with `keyFile` (PEM).
    init(backendPort: Int, certificateFile: String, keyFile: String) throws(StartError) {
        guard let library = TLSServerLibrary.shared else { throw .libraryUnavailable }
        guard let context = library.contextNew(library.serverMethod()) else { throw .libraryUnavailable }
        let box = ContextBox(pointer: context, free: library.contextFree)
        guard library.useCertificateChainFile(context, certificateFile) == 1 else { throw .certificate(certificateFile) }
        guard library.usePrivateKeyFile(context, keyFile, TLSServerLibrary.pemFileType) == 1 else { throw .certificate(keyFile) }
        let fd = socket(AF_INET, SocketConstants.streamType, 0)
        guard fd >= 0 else { throw .socket(errno: errno) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            let code = errno
            close(fd)
            throw .socket(errno: code)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: actual.sin_port))
        listenFD = fd
        self.backendPort = backendPort
        self.library = library
        self.context = box
        threads.enter()
        let thread = Thread { [self] in
            acceptLoop()
            threads.leave()
        }
        thread.name = "ChappieEmulator.tls-accept"
        thread.start()
    }

    /// Stops accepting, closes every connection, and waits for all relay threads to end.
    func shutdown() async {
        state.withLock { state in
            guard !state.stopping else { return }
            state.stopping = true
            _ = Self.shutdownSocket(listenFD)
            for fd in state.connections { _ = Self.shutdownSocket(fd) }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            threads.notify(queue: .global()) { continuation.resume() }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private static func shutdownSocket(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.shutdown(fd, SocketConstants.shutdownBoth)
        #else
        Darwin.shutdown(fd, SocketConstants.shutdownBoth)
        #endif
    }

    /// Registers `fd` as open (false when shutting down: the caller closes it).
    private func admit(_ fd: Int32) -> Bool {
        state.withLock { state in
            guard !state.stopping else { return false }
            state.connections.insert(fd)
            return true
        }
    }

    private func release(_ fd: Int32) {
        state.withLock { _ = $0.connections.remove(fd) }
        close(fd)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listenFD, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if state.withLock({ $0.stopping }) { break }
                if errno == EMFILE || errno == ENFILE { continue }
                break
            }
            guard admit(client) else {
                close(client)
                break
            }
            SocketIO.disableNagle(client)
            threads.enter()
            let thread = Thread { [self] in
                relay(client)
                release(client)
                threads.leave()
            }
            thread.name = "ChappieEmulator.tls-connection"
            thread.start()
        }
        close(listenFD)
    }

    /// Completes the TLS handshake on `client`, connects to the emulator, and copies bytes both
    /// ways until either side closes.
    private func relay(_ client: Int32) {
        guard let session = library.sessionNew(context.pointer) else { return }
        defer { library.sessionFree(session) }
        guard library.setFD(session, client) == 1, library.accept(session) == 1 else { return }
        let backend = socket(AF_INET, SocketConstants.streamType, 0)
        guard backend >= 0 else { return }
        guard admit(backend) else {
            close(backend)
            return
        }
        defer { release(backend) }
        var address = Self.loopback(port: backendPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(backend, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return }
        SocketIO.disableNagle(backend)
        pump(session: session, client: client, backend: backend)
        _ = library.shutdown(session)
    }

    private func pump(session: OpaquePointer, client: Int32, backend: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var descriptors = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: backend, events: Int16(POLLIN), revents: 0)]
        while !state.withLock({ $0.stopping }) {
            // Bytes OpenSSL already decrypted are not visible to poll(2).
            let buffered = library.pending(session) > 0
            if !buffered {
                descriptors[0].revents = 0
                descriptors[1].revents = 0
                guard poll(&descriptors, 2, -1) > 0 || errno == EINTR else { return }
            }
            if buffered || descriptors[0].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { library.read(session, $0.baseAddress, Int32($0.count)) }
                guard count > 0 else { return }
                guard SocketIO.sendAll(backend, Array(buffer[0..<Int(count)])) else { return }
                continue
            }
            if descriptors[1].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { recv(backend, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                var offset = 0
                while offset < count {
                    let written = buffer.withUnsafeMutableBytes {
                        library.write(session, $0.baseAddress!.advanced(by: offset), Int32(count - offset))
                    }
                    guard written > 0 else { return }
                    offset += Int(written)
                }
            }
        }
    }
}
