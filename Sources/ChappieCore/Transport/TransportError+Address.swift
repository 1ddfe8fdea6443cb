import ChappieTransport
import Foundation

extension TransportError {
    /// The message naming the address that failed (``DisplayedURL``: no query, no credentials):
    /// "could not reach https://host/path: connection refused" for a connection that failed, the
    /// address before a timeout's message, ``message`` for the rest.
    func message(at url: URL) -> String {
        let address = DisplayedURL.string(url)
        let text = switch self {
        case .network(let detail, _): DisplayedURL.unreachable + "\(address): \(detail)"
        case .headTimeout, .idleTimeout, .deadlineExceeded: "\(address): \(message)"
        case .responseTooLarge, .unsupported, .invalidHeaderField, .inflatedTooLarge: message
        }
        return Redaction.clean(text)
    }
}
