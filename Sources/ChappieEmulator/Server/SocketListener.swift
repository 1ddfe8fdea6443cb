import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback TCP listener (POSIX sockets) that serves each connection on its own thread, reading
/// requests with ``HTTPRequestReader`` and answering through an async handler.
///
/// `shutdown()` closes the listening socket, shuts down every open connection and returns once
/// every thread has finished.
final class SocketListener: Sendable {
    /// The async request handler; called once per request.
    typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    private struct State {
        var stopping = false
        var connections = Set<Int32>()
        var accepted = 0
    }

    /// The bound port.
    let port: Int
    private let listenFD: Int32
    private let handler: Handler
    private let state = LockedBox(State())
    private let threads = DispatchGroup()

    /// TCP connections accepted so far (keep-alive reuse shows as fewer connections than requests).
    var connectionsAccepted: Int { state.withLock { $0.accepted } }

    /// Binds `127.0.0.1:port` (0 picks a free port) and starts accepting.
    init(port: Int, handler: @escaping Handler) throws(ChappieEmulator.StartError) {
        let fd = socket(AF_INET, SocketConstants.streamType, 0)
        guard fd >= 0 else { throw .socket(errno: errno) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw .bind(port: port, errno: code)
        }
        guard listen(fd, 128) == 0 else {
            let code = errno
            close(fd)
            throw .socket(errno: code)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = Int(UInt16(bigEndian: actual.sin_port))
        self.listenFD = fd
        self.handler = handler
        threads.enter()
        let thread = Thread { [self] in
            acceptLoop()
            threads.leave()
        }
        thread.name = "ChappieEmulator.accept"
        thread.start()
    }

    /// Stops accepting, closes every connection, and waits for all connection threads to end.
    func shutdown() async {
        // Shut sockets down while holding the lock: a connection thread removes its descriptor
        // under the same lock before closing it, so a descriptor number reused elsewhere in the
        // process is never touched.
        state.withLock { state in
            guard !state.stopping else { return }
            state.stopping = true
            _ = Self.shutdownSocket(listenFD)
            for fd in state.connections { _ = Self.shutdownSocket(fd) }
        }
        #if canImport(Darwin)
        // Darwin does not wake a blocked accept(2) on shutdown(2) of the listening socket; a
        // throwaway loopback connection does.
        Self.wakeAcceptLoop(port: port)
        #endif
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            threads.notify(queue: .global()) { continuation.resume() }
        }
    }

    /// `shutdown(2)` both directions; named to avoid the clash with ``shutdown()``.
    private static func shutdownSocket(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.shutdown(fd, SocketConstants.shutdownBoth)
        #else
        Darwin.shutdown(fd, SocketConstants.shutdownBoth)
        #endif
    }

    #if canImport(Darwin)
    private static func wakeAcceptLoop(port: Int) {
        let fd = socket(AF_INET, SocketConstants.streamType, 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
    #endif

    private func acceptLoop() {
        while true {
            let client = accept(listenFD, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if state.withLock({ $0.stopping }) { break }
                if errno == EMFILE || errno == ENFILE { continue }
                break
            }
            let admitted = state.withLock { state -> Bool in
                guard !state.stopping else { return false }
                state.connections.insert(client)
                state.accepted += 1
                return true
            }
            guard admitted else {
                close(client)
                break
            }
            SocketIO.disableNagle(client)
            threads.enter()
            let thread = Thread { [self] in
                serve(client)
                state.withLock { _ = $0.connections.remove(client) }
                close(client)
                threads.leave()
            }
            thread.name = "ChappieEmulator.connection"
            thread.start()
        }
        close(listenFD)
    }

    private func serve(_ fd: Int32) {
        let reader = HTTPRequestReader(fd: fd)
        while !state.withLock({ $0.stopping }) {
            switch reader.next(sendInterim: { _ = SocketIO.sendAll(fd, $0) }) {
            case .closed:
                return
            case .rejected(let status, let detail):
                _ = HTTPResponseWriter.write(.detail(status, detail), to: fd, close: true)
                return
            case .request(let request):
                let handler = self.handler
                var response = BlockingBridge.run { await handler(request) }
                if let report = response.onClientClose {
                    // A stream ended by shutdown() looks like a client close on the socket; drop those.
                    response.onClientClose = { [state] sent in
                        if !state.withLock({ $0.stopping }) { report(sent) }
                    }
                }
                if case .webSocket(let session) = response.body {
                    guard HTTPResponseWriter.write(response, to: fd, close: false) else { return }
                    let stopping: @Sendable () -> Bool = { [state] in state.withLock { $0.stopping } }
                    session(WebSocketConnection(fd: fd, leftover: reader.takeBufferedBytes(), isStopping: stopping))
                    return
                }
                guard HTTPResponseWriter.write(response, to: fd, close: request.wantsClose) else { return }
            }
        }
    }
}
