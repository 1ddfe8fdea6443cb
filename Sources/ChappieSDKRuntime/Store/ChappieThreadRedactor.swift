import ChappieSDK
import ChappieTransport
import Foundation

/// Rewrites text before a store writes it, so secrets a user pasted, or a tool echoed, never
/// reach storage. A store applies its redactor to every string value of a thread: messages,
/// the compaction summary, titles, tool arguments and outputs, output items and error messages.
/// Identifiers (thread, turn, session and call ids), enumeration values (roles, statuses, kinds,
/// item types), dates and numbers are not touched.
///
/// The default, ``credentials``, replaces anything shaped like a bearer token, a JWT, an OpenAI
/// API key or refresh token, or a `…_token=value` pair with `[redacted]`. Combine it with
/// ``replacing(_:)`` for exact values the app knows, or supply your own with ``init(_:)``.
public struct ChappieThreadRedactor: Sendable {
    /// The replacement text for redacted values.
    public static let placeholder = "[redacted]"

    private let transform: (@Sendable (String) -> String)?

    /// A redactor that applies `redact` to every string value.
    public init(_ redact: @escaping @Sendable (String) -> String) {
        transform = redact
    }

    private init(identity: Void) {
        transform = nil
    }

    /// Leaves text unchanged.
    public static let none = ChappieThreadRedactor(identity: ())

    /// Replaces credential-shaped text: `Bearer …`, JWTs (`eyJ….….…`), `sk-…` API keys, `rt_…`
    /// refresh tokens and `access_token`/`refresh_token`/`id_token`/`code_verifier`/
    /// `authorization_code`/`api_key` assignments.
    public static let credentials = ChappieThreadRedactor { text in CredentialPatterns.redact(text) }

    /// Replaces every occurrence of each of `secrets` (values shorter than 4 characters are
    /// ignored, so a stray short value cannot blank out ordinary text).
    public static func replacing(_ secrets: [String]) -> ChappieThreadRedactor {
        let values = secrets.filter { $0.count >= 4 }.sorted { $0.count > $1.count }
        return ChappieThreadRedactor { text in
            values.reduce(text) { result, secret in
                result.contains(secret) ? result.replacingOccurrences(of: secret, with: placeholder) : result
            }
        }
    }

    /// This redactor followed by `next`.
    public func then(_ next: ChappieThreadRedactor) -> ChappieThreadRedactor {
        guard let first = transform else { return next }
        guard let second = next.transform else { return self }
        return ChappieThreadRedactor { second(first($0)) }
    }

    /// `text` after redaction. A secret split by invisible characters (a zero-width space, a
    /// soft hyphen, a word joiner, …) is redacted too: when `text` holds such characters and the
    /// text without them redacts differently, that redaction is returned (without them).
    public func redact(_ text: String) -> String {
        guard let transform else { return text }
        let redacted = transform(text)
        guard text.unicodeScalars.contains(where: Redaction.isInvisibleFormat) else { return redacted }
        let joined = String(String.UnicodeScalarView(text.unicodeScalars.filter { !Redaction.isInvisibleFormat($0) }))
        let joinedRedacted = transform(joined)
        return joinedRedacted == joined ? redacted : joinedRedacted
    }

    /// True for ``none``: a store can skip the redaction pass.
    var isIdentity: Bool { transform == nil }
}

/// The credential shapes ``ChappieThreadRedactor/credentials`` removes.
private enum CredentialPatterns {
    /// Each pattern keeps group 1 and replaces the rest of the match. `hint` is a cheap test
    /// that must pass before the regular expression runs (most text has no credential).
    private struct Pattern: Sendable {
        let expression: NSRegularExpression
        let hint: @Sendable (String) -> Bool
    }

    private static let sources: [(String, @Sendable (String) -> Bool)] = [
        (#"((?i:bearer)\s+)[A-Za-z0-9._~+/=-]{8,}"#, { $0.range(of: "bearer", options: .caseInsensitive) != nil }),
        (#"()eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*"#, { $0.contains("eyJ") }),
        (#"()\bsk-[A-Za-z0-9_-]{16,}"#, { $0.contains("sk-") }),
        (#"()\brt_[A-Za-z0-9._-]{16,}"#, { $0.contains("rt_") }),
        (#"((?i:refresh_token|access_token|id_token|code_verifier|authorization_code|api_key)"?\s*[:=]\s*"?)[^"&\s,}]+"#,
         { text in ["token", "code_verifier", "authorization_code", "api_key"].contains { text.range(of: $0, options: .caseInsensitive) != nil } }),
    ]

    private static let patterns: [Pattern] = sources.compactMap { source, hint in
        (try? NSRegularExpression(pattern: source)).map { Pattern(expression: $0, hint: hint) }
    }

    static func redact(_ text: String) -> String {
        var result = text
        for pattern in patterns where pattern.hint(result) {
            let range = NSRange(result.startIndex..., in: result)
            result = pattern.expression.stringByReplacingMatches(in: result, range: range,
                                                                 withTemplate: "$1" + ChappieThreadRedactor.placeholder)
        }
        return result
    }
}
