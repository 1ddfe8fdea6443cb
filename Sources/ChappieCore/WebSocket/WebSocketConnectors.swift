import ChappieTransport
import Foundation

/// Picks the WebSocket client a platform can use (DESIGN §4): `URLSessionWebSocketTask` on Apple
/// platforms; on Linux, where FoundationNetworking is built without WebSocket support (DESIGN §9),
/// Chappie's own RFC 6455 client (``RFC6455WebSocketConnector``) over the system OpenSSL.
enum WebSocketConnectors {
    /// The connector for this platform. On Linux without OpenSSL 3 its connects throw
    /// ``WebSocketError/unsupported(_:)``, which means "use HTTP/SSE".
    static func platformDefault() -> any WebSocketConnector {
        #if os(Linux)
        RFC6455WebSocketConnector.standard
        #else
        URLSessionWebSocketConnector()
        #endif
    }
}
