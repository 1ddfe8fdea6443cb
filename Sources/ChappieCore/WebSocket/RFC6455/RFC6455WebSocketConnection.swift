#if os(Linux)
import Foundation

/// An open connection of Chappie's own WebSocket client (``RFC6455WebSocketConnector``).
///
/// Calls never block: a dedicated I/O thread owns the socket. Messages the server sends wait in
/// a bounded inbox until ``receive()`` takes them. Cancelling a task waiting in ``send(text:)``
/// closes the connection (close frame 1000, then the socket); cancelling one waiting in
/// ``receive()`` only ends that wait (the connection stays open). Dropping the last reference
/// closes it with 1001 (going away).
final class RFC6455WebSocketConnection: WebSocketConnection {
    private let core: RFC6455ConnectionCore

    /// The header fields of the server's handshake response (`x-codex-turn-state`,
    /// `x-models-etag`, … PROTOCOL §6.1).
    let responseHeaders: [(name: String, value: String)]
    /// The handshake answer's headers (``WebSocketConnection/handshakeResponseHeaders``).
    var handshakeResponseHeaders: [(name: String, value: String)] { responseHeaders }

    /// Wraps an opened core.
    init(core: RFC6455ConnectionCore) {
        self.core = core
        self.responseHeaders = core.responseHeaders
    }

    deinit { core.close(code: WebSocketCloseCode.goingAway) }

    /// Sends one text frame (compressed when `permessage-deflate` is in use) and returns once it
    /// is written to the socket.
    ///
    /// - Throws: ``WebSocketError/closed(code:reason:)`` once the connection has ended or is
    ///   closing; `CancellationError`.
    func send(text: String) async throws {
        try await core.send(Array(text.utf8))
    }

    /// The next message.
    ///
    /// - Throws: ``WebSocketError/closed(code:reason:)``: the server's close code and reason;
    ///   1006 for a connection that ended without a close frame; 1002, 1007 or 1009 when the
    ///   server broke the protocol, sent text that is not UTF-8, or a message over the limit
    ///   (this client then closed with that code). `CancellationError`.
    func receive() async throws -> WebSocketMessage {
        try await core.receive()
    }

    /// Sends a close frame with `code` and stops all work; waiting calls end at once.
    func close(code: Int) {
        core.close(code: code)
    }
}
#endif
