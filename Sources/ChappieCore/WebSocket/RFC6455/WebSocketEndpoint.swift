import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a WebSocket URL points (RFC 6455 §3): host, port, TLS or not, and the request target
/// of the opening handshake.
///
/// `wss:` is required everywhere except literal loopback hosts (127.0.0.0/8, `::1`,
/// `localhost`), where plain `ws:` is allowed for a local server (the emulator); a name such as
/// `127.0.0.1.example.com` is not loopback, since it may resolve anywhere. The token in the
/// handshake headers must never cross a network in clear text.
struct WebSocketEndpoint: Sendable, Equatable {
    /// The host name or address literal, without IPv6 brackets.
    var host: String
    /// The TCP port (default 443 for `wss`, 80 for `ws`).
    var port: Int
    /// Whether the connection uses TLS (`wss:`).
    var isSecure: Bool
    /// The request target of the `GET` line: the percent-encoded path (at least `/`) and query.
    var requestTarget: String

    /// Parses `url`.
    ///
    /// - Throws: ``WebSocketError/unsupported(_:)`` for a scheme other than `ws`/`wss`, a URL
    ///   without a host, or `ws:` to a host that is not a literal loopback address.
    init(url: URL) throws(WebSocketError) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == Wire.ws || scheme == Wire.wss
        else { throw .unsupported("a WebSocket URL must start with ws:// or wss://") }
        guard let rawHost = components.host, !rawHost.isEmpty else { throw .unsupported("the WebSocket URL has no host") }
        host = rawHost.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        isSecure = scheme == Wire.wss
        port = components.port ?? (isSecure ? 443 : 80)
        guard (1...65_535).contains(port) else { throw .unsupported("the WebSocket URL's port is out of range") }
        guard isSecure || Self.isLoopback(host) else {
            throw .unsupported("plain ws:// is allowed only to a loopback address; use wss://")
        }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        requestTarget = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// The `Host` header value: the host (IPv6 in brackets) and the port unless it is the default.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (isSecure ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// Whether `host` is an IPv4 or IPv6 address literal (no SNI is sent for one, RFC 6066 §3).
    var isAddressLiteral: Bool { Self.isIPv4(host) || Self.isIPv6(host) }

    /// Whether `host` is a literal loopback host: an IPv4 address in 127.0.0.0/8, `::1`, or
    /// `localhost`.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == Wire.localhost { return true }
        var address6 = in6_addr()
        if inet_pton(AF_INET6, bare, &address6) == 1 {
            return withUnsafeBytes(of: &address6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
        }
        var address4 = in_addr()
        return inet_pton(AF_INET, bare, &address4) == 1 && bare.hasPrefix("127.")
    }

    private static func isIPv4(_ host: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1
    }

    private static func isIPv6(_ host: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, host, &address) == 1
    }

    private enum Wire {
        static let ws = "ws"
        static let wss = "wss"
        static let localhost = "localhost"
    }
}
