import ChappieTransport

/// Picks the platform's ``HTTPTransport``: on Linux, libcurl driven directly
/// (``CurlHTTPTransport``: backpressure, no proxy for loopback, no busy polling), falling back to
/// FoundationNetworking's `URLSession` when libcurl cannot be loaded; elsewhere `URLSession`.
enum HTTPTransports {
    /// A new transport (a client owns one for its lifetime).
    static func platformDefault() -> any HTTPTransport {
        #if canImport(CChappieCurl)
        if let transport = CurlHTTPTransport() { return transport }
        #endif
        return URLSessionHTTPTransport()
    }
}
