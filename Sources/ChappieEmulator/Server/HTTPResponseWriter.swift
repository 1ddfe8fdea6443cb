import Foundation

/// Serialises ``HTTPResponse`` values onto a socket (RFC 9112 §4, §6, §7.1): a buffered body with
/// `Content-Length`, or a stream with `Transfer-Encoding: chunked` where every chunk is sent (and so
/// flushed, with Nagle disabled) as soon as it is written.
enum HTTPResponseWriter {
    /// Writes `response` to `fd`. Returns false when the peer went away or the connection must
    /// close afterwards for another reason (the ending asked for it, or `close` is true). For a
    /// WebSocket upgrade it writes only the head and returns whether that succeeded.
    static func write(_ response: HTTPResponse, to fd: Int32, close: Bool) -> Bool {
        var keepOpen = !close && !response.closeConnection
        var head = "HTTP/1.1 \(response.status) \(HTTPResponse.reasonPhrase(response.status))\r\n"
        for header in response.headers { head += "\(header.name): \(header.value)\r\n" }
        head += "\(Wire.date): \(httpDate())\r\n"
        switch response.body {
        case .bytes(let data):
            head += "\(Wire.contentLength): \(data.count)\r\n"
            if !keepOpen { head += "\(Wire.connection): close\r\n" }
            head += "\r\n"
            guard SocketIO.sendAll(fd, Array(head.utf8) + Array(data)) else { return false }
            return keepOpen
        case .webSocket:
            // 101 Switching Protocols: the head only; the caller then hands the socket to the session.
            head += "\r\n"
            return SocketIO.sendAll(fd, Array(head.utf8))
        case .drop:
            return false
        case .stream(let chunks, let ending, let interval):
            if ending != .finish { keepOpen = false }
            head += "\(Wire.transferEncoding): chunked\r\n"
            if !keepOpen { head += "\(Wire.connection): close\r\n" }
            head += "\r\n"
            guard SocketIO.sendAll(fd, Array(head.utf8)) else { return false }
            var sent = 0
            func clientLeft() -> Bool {
                response.onClientClose?(sent)
                return false
            }
            for chunk in chunks where !chunk.isEmpty {
                if let interval {
                    if SocketIO.peerCloses(fd, within: interval) { return clientLeft() }
                } else if SocketIO.peerHasClosed(fd) {
                    return clientLeft()
                }
                let framed = Array(String(chunk.count, radix: 16).utf8) + [0x0D, 0x0A] + Array(chunk) + [0x0D, 0x0A]
                guard SocketIO.sendAll(fd, framed) else { return clientLeft() }
                sent += 1
            }
            switch ending {
            case .finish, .finishAndClose:
                guard SocketIO.sendAll(fd, Array(Wire.lastChunk.utf8)) else { return clientLeft() }
            case .abort, .closeWebSocket:
                return false
            case .reset:
                SocketIO.resetOnClose(fd)
                return false
            case .stall, .stallIgnoringInterrupts:
                SocketIO.waitUntilClosed(fd)
                return clientLeft()
            }
            return keepOpen
        }
    }

    /// An IMF-fixdate for the `Date` header (RFC 9110 §5.6.7).
    private static func httpDate() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date())
    }

    private enum Wire {
        static let date = "Date"
        static let contentLength = "Content-Length"
        static let transferEncoding = "Transfer-Encoding"
        static let connection = "Connection"
        static let lastChunk = "0\r\n\r\n"
    }
}
