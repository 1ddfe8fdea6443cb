import Foundation

/// Makes remote or secret-adjacent text safe to show: sanitize, redact known secrets, truncate.
///
/// Order matters (STYLE §12): control characters and escape sequences are stripped first so a
/// secret cannot be hidden from the redactor by interleaved escapes, then every registered secret
/// value and every bearer/JWT-looking token is replaced, then the text is cut to a byte budget on a
/// character boundary.
package enum Redaction {
    /// Largest message, in UTF-8 bytes, that any Chappie error carries.
    static let maximumMessageBytes = 512

    /// Secrets currently known to this process (access, refresh and ID tokens, verifiers), the
    /// most recent ``maximumKnownSecrets``, oldest first. Registered when a credential is loaded or
    /// issued; never listed or printed.
    private static let knownSecrets = LockedBox<(order: [String], set: Set<String>)>(([], []))

    /// How many secrets are remembered; past it the oldest is forgotten (the current tokens are
    /// always the newest, so they are always redacted by value).
    static let maximumKnownSecrets = 256

    /// Remembers `secret` so that any later message containing it is redacted.
    static func register(_ secret: String) {
        guard secret.count >= 8 else { return }
        knownSecrets.withLock { known in
            guard known.set.insert(secret).inserted else { return }
            known.order.append(secret)
            if known.order.count > maximumKnownSecrets { known.set.remove(known.order.removeFirst()) }
        }
    }

    /// Returns `text` sanitized, redacted and truncated to `maximumBytes` UTF-8 bytes.
    static func clean(_ text: String, maximumBytes: Int = maximumMessageBytes) -> String {
        var result = sanitize(text)
        for secret in knownSecrets.withLock({ $0.set }) where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: "[redacted]")
        }
        result = redactTokenShapes(result)
        return truncate(result, maximumBytes: maximumBytes)
    }

    /// Removes C0/C1 control characters (except tab and newline), ANSI escape sequences and the
    /// invisible formatting characters (``isInvisibleFormat(_:)``), so a secret split by a
    /// zero-width space is joined again before it is matched.
    static func sanitize(_ text: String) -> String {
        var output = String.UnicodeScalarView()
        var iterator = text.unicodeScalars.makeIterator()
        while let scalar = iterator.next() {
            if scalar == "\u{1B}" {
                // Drop an escape sequence: ESC [ parameters final-byte (CSI), or ESC plus one scalar.
                if iterator.next() == "[" {
                    while let next = iterator.next(), !(0x40...0x7E).contains(next.value) {}
                }
                continue
            }
            if scalar == "\n" || scalar == "\t" { output.append(scalar); continue }
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || isInvisibleFormat(scalar) { continue }
            output.append(scalar)
        }
        return String(output)
    }

    /// True for the characters that print as nothing yet split a word: soft hyphen, Mongolian
    /// vowel separator, zero-width space, non-joiner and joiner, the direction marks, the
    /// bidirectional embeddings, overrides and isolates, word joiner and invisible operators,
    /// and the byte-order mark.
    package static func isInvisibleFormat(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0xAD, 0x180E, 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2064, 0x2066...0x2069, 0xFEFF: true
        default: false
        }
    }

    /// Replaces anything shaped like a bearer credential or a JWT.
    static func redactTokenShapes(_ text: String) -> String {
        var result = text
        for expression in Wire.expressions {
            let range = NSRange(result.startIndex..., in: result)
            result = expression.stringByReplacingMatches(in: result, range: range, withTemplate: "$1[redacted]")
        }
        return result
    }

    /// Cuts `text` to at most `maximumBytes` UTF-8 bytes on a character boundary, marking the cut.
    static func truncate(_ text: String, maximumBytes: Int) -> String {
        guard text.utf8.count > maximumBytes else { return text }
        var kept = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            if used + size > maximumBytes { break }
            kept.append(character)
            used += size
        }
        return kept + "… [truncated \(text.utf8.count - used) bytes]"
    }

    private enum Wire {
        static let patterns = [
            #"((?i:bearer)\s+)[A-Za-z0-9._~+/=-]+"#,
            #"()eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*"#,
            // Refresh tokens and API keys, the same shapes the thread redactor removes.
            #"()\brt_[A-Za-z0-9._-]{16,}"#,
            #"()\bsk-[A-Za-z0-9_-]{16,}"#,
            #"((?:refresh_token|access_token|id_token|code_verifier|authorization_code)"?\s*[:=]\s*"?)[^"&\s,}]+"#,
        ]

        /// ``patterns``, compiled once (a regular expression is safe to use from any thread).
        static let expressions = patterns.map { pattern in
            // The patterns are constants: one that does not compile is a programming error.
            guard let expression = try? NSRegularExpression(pattern: pattern) else { preconditionFailure("bad pattern \(pattern)") }
            return expression
        }
    }
}
