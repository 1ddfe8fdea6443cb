import Foundation

/// One message received on a WebSocket (RFC 6455 §5.6 data frames).
enum WebSocketMessage: Sendable, Equatable {
    /// A text frame (UTF-8).
    case text(String)
    /// A binary frame.
    case binary(Data)
}

/// Why a WebSocket could not be used.
enum WebSocketError: Error, Sendable, Equatable {
    /// This platform's WebSocket client cannot connect at all (Linux libcurl without ws/wss;
    /// Chappie's own client without OpenSSL 3), or cannot carry this request (`ws:` to a host
    /// that is not loopback, a header HTTP cannot carry): use HTTP.
    case unsupported(String)
    /// The upgrade was refused with an HTTP status (426 = use HTTP; 401 = refresh; a 3xx is
    /// refused, never followed).
    case handshakeRejected(status: Int)
    /// The connection closed with a close code (RFC 6455 §7.4): the server's (1008 policy,
    /// 1009 message too big, 1000/1001 normal, …), or one reported locally: 1006 abnormal (no
    /// close frame), 1015 TLS handshake failed (certificate or host name not verified), and
    /// 1002/1007/1009 when the client failed the connection because the server broke the
    /// protocol, sent text that is not UTF-8, or a frame or message over the limit.
    case closed(code: Int, reason: String)
    /// The connection broke (network error). Chappie's own client reports this only before the
    /// connection opened (name resolution, connect, the connect deadline); after, a drop is
    /// `.closed(code: 1006, …)`.
    case network(String)
    /// The connection was not open by the connect deadline: the server did not accept the
    /// connection, or took it and never answered the upgrade. Another attempt would wait as long.
    case openTimedOut
    /// A send did not hand its message to the network within its deadline: the peer stopped
    /// reading (a half-open connection) or the link is too slow. The connection was closed.
    case sendTimedOut
}

/// An open WebSocket: send text frames, receive messages, close.
protocol WebSocketConnection: Sendable {
    /// Header fields of the `101 Switching Protocols` answer, names as sent (the server's
    /// `x-codex-turn-state` and `x-models-etag` come here, PROTOCOL §6.1).
    var handshakeResponseHeaders: [(name: String, value: String)] { get }
    /// Sends one text frame. Throws ``WebSocketError``.
    func send(text: String) async throws
    /// Waits for the next message. Throws ``WebSocketError`` (a close arrives as `.closed`) or
    /// `CancellationError`, at once when the caller is cancelled; the connection then stays open
    /// and a message that arrives later goes to the next call (the caller closes it if it wants).
    func receive() async throws -> WebSocketMessage
    /// Closes with `code` (1000 normal) and stops all work.
    func close(code: Int)
}

/// Opens WebSocket connections; the seam between the streaming coordinator and the platform.
protocol WebSocketConnector: Sendable {
    /// Opens a connection to `url` (`ws:`/`wss:`) with handshake `headers`.
    /// Throws ``WebSocketError`` (`.unsupported` when this platform has no WebSocket client).
    func connect(url: URL, headers: [(name: String, value: String)], timeout: TimeInterval) async throws -> any WebSocketConnection
}

extension WebSocketConnection {
    /// No headers, for connections that do not keep them.
    var handshakeResponseHeaders: [(name: String, value: String)] { [] }
}
