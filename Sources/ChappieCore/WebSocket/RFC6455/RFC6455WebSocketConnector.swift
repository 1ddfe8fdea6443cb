#if os(Linux)
import Dispatch
import Foundation

/// Chappie's own WebSocket client (RFC 6455) for Linux, where FoundationNetworking has no
/// WebSocket support (DESIGN §4, §9): TCP through POSIX sockets, TLS 1.2+ through the system
/// OpenSSL 3 loaded at run time, the HTTP/1.1 upgrade, masked frames, fragmentation, ping/pong,
/// the close handshake, size limits, and `permessage-deflate` (RFC 7692) through the system zlib
/// when the server accepts it.
///
/// Each connection runs on a thread of its own (``RFC6455IOLoop``), so nothing blocks Swift's
/// cooperative pool; it belongs to the ``ThreadGroup`` of the task that connects (a client's, so
/// its shutdown can wait for it). `wss:` is required except to literal loopback hosts. Redirects are refused
/// (a 3xx is ``WebSocketError/handshakeRejected(status:)``), so a token never goes to another
/// host. The handshake headers are sent as given and never logged or quoted in an error.
///
/// Errors from ``connect(url:headers:timeout:)``:
/// * ``WebSocketError/unsupported(_:)``: OpenSSL (`libssl.so.3`/`libcrypto.so.3`) is missing,
///   the URL is not `ws:`/`wss:`, `ws:` to a host that is not loopback, or a header that HTTP
///   cannot carry. Use HTTP instead.
/// * ``WebSocketError/handshakeRejected(status:)``: any status but 101 (401, 426, 3xx, …).
/// * ``WebSocketError/closed(code:reason:)`` with 1015: the TLS handshake failed (untrusted
///   certificate, wrong host name, no common protocol); with 1002: the 101 answer was not a valid
///   WebSocket upgrade (`Sec-WebSocket-Accept`, `Upgrade`, extensions).
/// * ``WebSocketError/network(_:)``: resolution, connect, a drop during the handshake, or the
///   deadline (`timeout` covers all of it).
/// * `CancellationError`.
struct RFC6455WebSocketConnector: WebSocketConnector {
    /// The system libraries a connector uses (replaced in tests to simulate a missing one),
    /// loaded on the connection's thread: `dlopen` reads files, which never happens on the
    /// cooperative pool.
    struct Libraries: Sendable {
        /// Loads OpenSSL, required (TLS and the SHA-1 of the handshake).
        var openSSL: @Sendable () -> Result<OpenSSLLibrary, SystemLibrary.LoadError>
        /// Loads zlib, optional: without it `permessage-deflate` is not offered.
        var zlib: @Sendable () -> Result<ZlibLibrary, SystemLibrary.LoadError>

        /// The process-wide libraries (each loaded once).
        static let system = Libraries(openSSL: { OpenSSLLibrary.shared }, zlib: { ZlibLibrary.shared })
    }

    /// Where server certificates are verified.
    var trust: WebSocketTrust
    /// Whether `permessage-deflate` is offered (when zlib is present).
    var offersPerMessageDeflate: Bool
    /// The largest frame or message accepted from the server, in bytes (compressed or
    /// decompressed); a larger one is closed with 1009.
    var maximumMessageBytes: Int
    /// The largest handshake response head accepted, in bytes.
    var maximumHandshakeHeadBytes: Int
    /// How long to wait for the server's side of the close handshake before closing the socket.
    var closeTimeout: Duration
    /// The system libraries.
    var libraries: Libraries

    /// A connector trusting `trust` (the system store by default; a CA file for a private or test
    /// CA), offering `permessage-deflate` unless told not to, refusing server messages over
    /// `maximumMessageBytes` bytes (16 MiB by default, ``WebSocketLimits/maximumFrameBytes``).
    init(
        trust: WebSocketTrust = .system,
        offersPerMessageDeflate: Bool = true,
        maximumMessageBytes: Int = WebSocketLimits.maximumFrameBytes,
        maximumHandshakeHeadBytes: Int = 16 * 1024,
        closeTimeout: Duration = .seconds(2),
        libraries: Libraries = .system
    ) {
        self.trust = trust
        self.offersPerMessageDeflate = offersPerMessageDeflate
        self.maximumMessageBytes = maximumMessageBytes
        self.maximumHandshakeHeadBytes = maximumHandshakeHeadBytes
        self.closeTimeout = closeTimeout
        self.libraries = libraries
    }

    /// Opens a connection to `url` with the handshake `headers`, open within `timeout` seconds.
    /// The returned connection is an ``RFC6455WebSocketConnection``.
    ///
    /// - Throws: see the type's documentation.
    func connect(url: URL, headers: [(name: String, value: String)], timeout: TimeInterval) async throws -> any WebSocketConnection {
        try await open(url: url, headers: headers, timeout: timeout)
    }

    /// ``connect(url:headers:timeout:)`` with the concrete connection type.
    ///
    /// - Throws: see the type's documentation.
    func open(url: URL, headers: [(name: String, value: String)], timeout: TimeInterval) async throws -> RFC6455WebSocketConnection {
        try Task.checkCancellation()
        let endpoint = try WebSocketEndpoint(url: url)
        try WebSocketHandshake.checkHeaders(headers)
        let seconds = timeout.isFinite ? max(0.001, timeout) : 3600
        let plan = RFC6455IOLoop.Plan(
            endpoint: endpoint, headers: headers, deadline: .now + .milliseconds(Int64(seconds * 1000)), trust: trust, libraries: libraries,
            offersPerMessageDeflate: offersPerMessageDeflate, maximumMessageBytes: maximumMessageBytes,
            maximumHandshakeHeadBytes: maximumHandshakeHeadBytes, closeTimeout: closeTimeout)
        let core = RFC6455ConnectionCore(wakeup: try WakeupSignal())
        // Joined by the client's shutdown when it runs in the client's thread group.
        guard JoinableThread(name: Wire.threadName, body: { RFC6455IOLoop(core: core, plan: plan).run() }) != nil else {
            throw WebSocketError.network("could not start the connection's thread")
        }
        // The deadline also holds while the thread sits in getaddrinfo, which poll cannot interrupt.
        let deadline = DispatchWorkItem { [weak core] in
            core?.abandon(WebSocketError.openTimedOut)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: deadline)
        defer { deadline.cancel() }
        try await core.waitUntilOpen()
        return RFC6455WebSocketConnection(core: core)
    }

    private enum Wire {
        static let threadName = "Chappie.websocket"
    }
}
#endif
