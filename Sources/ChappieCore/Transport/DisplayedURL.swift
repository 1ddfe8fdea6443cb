import ChappieTransport
import Foundation

/// The form of a request's address that an error message may show: scheme, host, port and path,
/// never a query, fragment, user or password (a query can carry an authorization code or a
/// token), redacted as any message is. "Could not reach https://127.0.0.1:9/backend-api/codex/responses"
/// tells the user which server failed without showing what was sent to it.
enum DisplayedURL {
    /// `url` without query, fragment and credentials, redacted.
    static func string(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return Redaction.clean(url.host.map { "\(url.scheme ?? "https")://\($0)" } ?? "the server")
        }
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        return Redaction.clean(components.string ?? "the server")
    }

    /// How a message that names the address it could not reach starts (``TransportError/message(at:)``).
    static let unreachable = "could not reach "

    /// The sentence an error shows for `message`: a message that already says which address it
    /// could not reach stands alone ("Could not reach https://…: …"), any other follows `lead`.
    static func sentence(_ message: String, lead: String) -> String {
        guard message.hasPrefix(unreachable) else { return lead + message }
        return "C" + message.dropFirst()
    }
}
