import ChappieSDK
import Foundation

/// Why a recorded turn did not complete: a stable kind to branch on and a bounded, printable
/// message. Stored with the turn, so it never holds a raw response body or a credential.
public struct ChappieThreadTurnFailure: Sendable, Hashable, Codable {
    /// What kind of failure it was.
    public struct Kind: RawRepresentable, Sendable, Hashable, Codable {
        /// The stored name of the kind; unknown names from newer versions are kept as they are.
        public var rawValue: String
        /// Creates a kind from its stored name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A ``/ChappieSDK/ChappieClientError`` from the client.
        public static let client = Kind(rawValue: "client")
        /// The turn was cancelled.
        public static let cancelled = Kind(rawValue: "cancelled")
        /// Any other error.
        public static let other = Kind(rawValue: "other")
    }

    /// Largest stored message, in UTF-8 bytes; longer messages are cut on a character boundary.
    public static let maximumMessageBytes = 1024

    /// The failure's kind.
    public var kind: Kind
    /// A one-line description for people (at most ``maximumMessageBytes`` bytes).
    public var message: String
    /// Whether signing in again is the way forward (from ``/ChappieSDK/ChappieClientError/requiresReauthentication``).
    public var requiresReauthentication: Bool

    /// Creates a failure record; `message` is cut to ``maximumMessageBytes`` bytes.
    public init(kind: Kind, message: String, requiresReauthentication: Bool = false) {
        self.kind = kind
        self.message = Self.bounded(message)
        self.requiresReauthentication = requiresReauthentication
    }

    /// Describes `error`: ``/ChappieSDK/ChappieClientError`` keeps its (already sanitized) description,
    /// `CancellationError` becomes ``Kind/cancelled``, anything else its localized description.
    public init(_ error: any Error) {
        switch error {
        case let error as ChappieClientError:
            self.init(kind: .client, message: error.errorDescription ?? "request failed",
                      requiresReauthentication: error.requiresReauthentication)
        case is CancellationError:
            self.init(kind: .cancelled, message: "The turn was cancelled.")
        default:
            self.init(kind: .other, message: error.localizedDescription)
        }
    }

    private static func bounded(_ text: String) -> String {
        guard text.utf8.count > maximumMessageBytes else { return text }
        var kept = ""
        var used = 0
        for character in text {
            used += character.utf8.count
            if used > maximumMessageBytes - 3 { break }
            kept.append(character)
        }
        return kept + "…"
    }
}
