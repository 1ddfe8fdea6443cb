import ChappieTransport
import Foundation

/// Why a typed reply (``ChappieClient/send(_:generating:)-(String,_)``, ``ChappieClient/stream(_:generating:)-(String,_)``)
/// could not be produced. Failures of the request itself (sign-in, network, limits) are
/// ``ChappieClientError``s as usual. Raw text is sanitized, redacted and cut to
/// ``maximumRawTextBytes`` (then ends with a short note of how many bytes were left out).
public enum ChappieGenerationError: Error, Sendable, Equatable, LocalizedError {
    /// The type's schema could not be derived (the reason); nothing was sent.
    case invalidSchema(String)
    /// The backend refused the schema (its sanitized reason); write it with
    /// ``ChappieGenerationSchema``'s builders, which meet the strict rules.
    case schemaRejected(String)
    /// The reply completed but ends in the middle of its JSON value (the raw text so far).
    case truncatedReply(rawText: String)
    /// The reply is not JSON, or is JSON that does not decode as the type: why, and the raw text.
    case undecodableReply(reason: String, rawText: String)

    /// The most raw reply text an error carries, in UTF-8 bytes (4 KiB).
    public static let maximumRawTextBytes = 4096

    /// A one-line description for people.
    public var errorDescription: String? {
        switch self {
        case .invalidSchema(let reason): "The output type has no usable schema: \(reason)"
        case .schemaRejected(let reason): "The server refused the output schema: \(reason)"
        case .truncatedReply: "The reply stopped in the middle of its JSON value."
        case .undecodableReply(let reason, _): "The reply does not decode as the requested type: \(reason)"
        }
    }

    /// What to do about it.
    public var recoverySuggestion: String? {
        switch self {
        case .invalidSchema: "Write the type's generationSchema with ChappieGenerationSchema's builders."
        case .schemaRejected: "Build the schema with ChappieGenerationSchema's builders instead of a hand-written one."
        case .truncatedReply: "Try again; ask for a shorter value if it keeps happening."
        case .undecodableReply: "Try again, or make the schema match the type's Decodable implementation."
        }
    }

    /// The raw reply text, for a reply error.
    public var rawText: String? {
        switch self {
        case .truncatedReply(let text), .undecodableReply(_, let text): text
        default: nil
        }
    }

    static func clean(_ text: String) -> String {
        Redaction.clean(text, maximumBytes: maximumRawTextBytes)
    }
}
