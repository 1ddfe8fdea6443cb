import Foundation

/// Keeps the signed-in user's own access token out of what a reply shows: a backend that echoes
/// the `Authorization` header's token into its text (a hostile or broken server, or a model told
/// to repeat its request) would otherwise hand the token to app code and to the screen.
///
/// Fed text piece by piece (``feed(_:)``): every whole occurrence becomes `[redacted]`, and when a
/// piece ends with the start of the token, that start is held back until the next piece shows
/// whether the token follows (``finish()`` releases it). Ordinary text is never held: a piece
/// is held only while its end could begin the token. Each piece costs time linear in its own
/// length plus the held part, at most the token's length.
struct EchoedSecretFilter: Sendable {
    /// The replacement text.
    static let placeholder = "[redacted]"

    private let secrets: [String]
    /// The longest secret's length in UTF-8 bytes.
    private let longestSecret: Int
    private var held = ""

    /// A filter for `secrets` (values shorter than 16 characters are ignored: a real token is
    /// hundreds of characters long, and a short value could blank out ordinary text).
    init(secrets: [String]) {
        self.secrets = secrets.filter { $0.utf8.count >= 16 && $0.utf8.allSatisfy { $0 < 0x80 } }
        longestSecret = self.secrets.map(\.utf8.count).max() ?? 0
    }

    /// The part of `held + piece` that may be shown now, with whole tokens replaced.
    mutating func feed(_ piece: String) -> String {
        guard !secrets.isEmpty else { return piece }
        var pending = held + piece
        held = ""
        pending = redacted(pending)
        let keep = heldSuffixLength(pending)
        guard keep > 0 else { return pending }
        let bytes = pending.utf8
        let cut = bytes.index(bytes.endIndex, offsetBy: -keep)
        held = String(pending[cut...])
        return String(pending[..<cut])
    }

    /// `text`, all the text fed so far, as it was shown: redacted, without the part still held
    /// back (no token can span the end of what was shown: that end would have been held).
    func shown(_ text: String) -> String {
        guard !secrets.isEmpty else { return text }
        let redactedText = redacted(text)
        guard !held.isEmpty else { return redactedText }
        let bytes = redactedText.utf8
        return String(redactedText[..<bytes.index(bytes.endIndex, offsetBy: -min(held.utf8.count, bytes.count))])
    }

    /// What is still held back (the start of the token that never came); empty afterwards.
    mutating func finish() -> String {
        defer { held = "" }
        return held
    }

    /// `text` with every whole occurrence of a secret replaced.
    func redacted(_ text: String) -> String {
        secrets.reduce(text) { result, secret in
            result.utf8.count >= secret.utf8.count && result.contains(secret)
                ? result.replacingOccurrences(of: secret, with: Self.placeholder) : result
        }
    }

    /// `value` with every string in it redacted (output items: message text, call arguments).
    func redacted(_ value: ChappieJSONValue) -> ChappieJSONValue {
        guard !secrets.isEmpty else { return value }
        switch value {
        case .string(let text): return .string(redacted(text))
        case .array(let items): return .array(items.map(redacted))
        case .object(let members): return .object(members.mapValues(redacted))
        default: return value
        }
    }

    /// The response with its text, reasoning summary and items redacted.
    func redacted(_ response: ChappieResponse) -> ChappieResponse {
        guard !secrets.isEmpty else { return response }
        var response = response
        response.outputText = redacted(response.outputText)
        response.reasoningSummary = redacted(response.reasoningSummary)
        response.items = response.items.map(redacted)
        return response
    }

    /// The length in UTF-8 bytes of the longest end of `text` that is the start of a secret
    /// (0 when none is). Secrets are ASCII, so such an end is ASCII and cutting it keeps
    /// `text` valid. Only the last `longest secret - 1` bytes are looked at.
    private func heldSuffixLength(_ text: String) -> Int {
        let window = Array(text.utf8.suffix(longestSecret - 1))
        var longest = 0
        for secret in secrets {
            let start = secret.utf8
            guard let first = start.first else { continue }
            for offset in max(0, window.count - start.count + 1)..<window.count where window[offset] == first {
                let end = window[offset...]
                guard start.starts(with: end) else { continue }
                longest = max(longest, end.count)
                break  // the earliest match is the longest for this secret
            }
        }
        return longest
    }
}
