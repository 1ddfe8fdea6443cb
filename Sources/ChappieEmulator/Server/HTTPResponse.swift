import Foundation

/// A response produced by a handler: either a buffered body sent with `Content-Length`, or an
/// event stream sent with `Transfer-Encoding: chunked`, one chunk per event (RFC 9112 §7.1).
struct HTTPResponse: Sendable {
    /// How a streamed body ends.
    enum StreamEnding: Sendable, Equatable {
        /// Send the last (zero-length) chunk and keep the connection for the next request.
        case finish
        /// Send the last chunk, then close the connection (after `response.failed`, PROTOCOL §5.1).
        case finishAndClose
        /// Close the socket at once without the last chunk: the client sees a truncated body.
        case abort
        /// Send nothing more and keep the socket open until the client leaves or the emulator shuts
        /// down; on a WebSocket a `response.interrupt` still ends the response as interrupted.
        case stall
        /// Like ``stall``, and on a WebSocket a `response.interrupt` goes unanswered too.
        case stallIgnoringInterrupts
        /// Reset the connection at once (TCP RST, see ``SocketIO/resetOnClose(_:)``) without the last chunk.
        case reset
        /// On a WebSocket: send a close frame with `code` and `reason` (RFC 6455 §5.5.1) and wait
        /// briefly for the client's reply. Over HTTP it behaves like ``abort``.
        case closeWebSocket(code: UInt16, reason: String)
    }

    /// What follows the header block.
    enum Body: Sendable {
        /// A complete body, sent with `Content-Length`.
        case bytes(Data)
        /// Chunks written and flushed one by one, waiting `interval` before each (nil = no wait),
        /// then `ending`.
        case stream(chunks: [Data], ending: StreamEnding, interval: Duration? = nil)
        /// No answer at all: the connection closes before the status line (a network error for
        /// the client, with nothing received).
        case drop
        /// A `101 Switching Protocols` upgrade (RFC 6455 §4.2.2): after the head, `session` runs
        /// on the connection's thread with the upgraded socket; the connection closes when it returns.
        case webSocket(session: @Sendable (WebSocketConnection) -> Void)
    }

    /// Status code, e.g. 200.
    var status: Int
    /// Header fields in order (framing headers are added by the writer).
    var headers: [(name: String, value: String)]
    /// The body.
    var body: Body
    /// Whether to close the connection after this response.
    var closeConnection = false
    /// Called on the connection thread when the client closes the connection while a streamed
    /// body is still being sent or held open, with the number of body chunks fully written
    /// before. Not called when the emulator shuts down.
    var onClientClose: (@Sendable (_ chunksSent: Int) -> Void)?

    /// A JSON response with `Content-Type: application/json`.
    static func json(_ status: Int, _ value: JSONValue, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: [(Wire.contentType, Wire.json)] + headers,
            body: .bytes(value.data)
        )
    }

    /// A FastAPI-style `{"detail": …}` error, the shape of ChatGPT backend errors (PROTOCOL §4.7).
    static func detail(_ status: Int, _ message: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        json(status, ["detail": .string(message)], headers: headers)
    }

    /// An HTML page.
    static func html(_ status: Int, _ page: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [(Wire.contentType, Wire.html)], body: .bytes(Data(page.utf8)))
    }

    /// The standard reason phrase for `status` (RFC 9110 §15).
    static func reasonPhrase(_ status: Int) -> String {
        Wire.reasons[status] ?? "Status \(status)"
    }

    private enum Wire {
        static let contentType = "Content-Type"
        static let json = "application/json"
        static let html = "text/html; charset=utf-8"
        static let reasons: [Int: String] = [
            100: "Continue", 101: "Switching Protocols", 200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
            404: "Not Found", 405: "Method Not Allowed", 426: "Upgrade Required", 408: "Request Timeout", 410: "Gone",
            413: "Content Too Large", 415: "Unsupported Media Type", 422: "Unprocessable Content",
            429: "Too Many Requests", 431: "Request Header Fields Too Large", 500: "Internal Server Error",
            501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable", 505: "HTTP Version Not Supported",
        ]
    }
}
