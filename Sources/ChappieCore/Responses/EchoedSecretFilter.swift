import ChappieTransport
import Foundation

/// Keeps the signed-in user's own access token out of what a reply shows: a backend that echoes
/// the `Authorization` header's token into its text (a hostile or broken server, or a model told
/// to repeat its request) would otherwise hand the token to app code and to the screen.
///
/// Fed text piece by piece (``feed(_:)``): every occurrence becomes `[redacted]`, and when a piece
/// ends with the start of the token, that start is held back until the next piece shows whether
/// the token follows (``finish()`` releases it). Matching is on UTF-8 bytes, so a combining mark
/// or variation selector after the token cannot merge with its last character and hide it, and
/// it skips the invisible formatting characters (``Redaction/isInvisibleFormat(_:)``), so a
/// zero-width space inside the token does not hide it either. Ordinary text is never held: a
/// piece is held only while its end could begin the token. Each piece costs time linear in its
/// own length plus the held part, at most the token's length.
struct EchoedSecretFilter: Sendable {
    /// The replacement text.
    static let placeholder = "[redacted]"

    private let secrets: [[UInt8]]
    /// The longest secret's length in bytes.
    private let longestSecret: Int
    /// Bytes held back: the start of a scalar, so `String(decoding:)` of what is shown stays whole.
    private var held: [UInt8] = []

    /// A filter for `secrets` (values shorter than 16 characters are ignored: a real token is
    /// hundreds of characters long, and a short value could blank out ordinary text; so are
    /// values that are not ASCII, which no token is).
    init(secrets: [String]) {
        self.secrets = secrets.map { Array($0.utf8) }.filter { $0.count >= 16 && $0.allSatisfy { $0 < 0x80 } }
        longestSecret = self.secrets.map(\.count).max() ?? 0
    }

    /// The part of the held text and `piece` that may be shown now, with every token replaced.
    mutating func feed(_ piece: String) -> String {
        guard !secrets.isEmpty else { return piece }
        let pending = redactedBytes(held + Array(piece.utf8))
        let keep = heldSuffixLength(pending)
        held = Array(pending.suffix(keep))
        return String(decoding: pending.dropLast(keep), as: UTF8.self)
    }

    /// What is still held back (the start of the token that never came); empty afterwards.
    mutating func finish() -> String {
        defer { held = [] }
        return String(decoding: held, as: UTF8.self)
    }

    /// `text`, all the text fed so far, as it was shown: redacted, without the part still held
    /// back (no token can span the end of what was shown: that end would have been held).
    func shown(_ text: String) -> String {
        guard !secrets.isEmpty else { return text }
        let bytes = redactedBytes(Array(text.utf8))
        return String(decoding: bytes.dropLast(min(held.count, bytes.count)), as: UTF8.self)
    }

    /// `text` with every occurrence of a secret replaced.
    func redacted(_ text: String) -> String {
        guard !secrets.isEmpty else { return text }
        return String(decoding: redactedBytes(Array(text.utf8)), as: UTF8.self)
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

    /// The web search step with its query, URL and pattern redacted.
    func redacted(_ call: ChappieWebSearchCall) -> ChappieWebSearchCall {
        guard !secrets.isEmpty else { return call }
        var call = call
        call.action = switch call.action {
        case .search(let query): .search(query: query.map(redacted))
        case .openPage(let url): .openPage(url: url.map(redacted))
        case .findInPage(let url, let pattern): .findInPage(url: url.map(redacted), pattern: pattern.map(redacted))
        case .other(let kind): .other(redacted(kind))
        }
        return call
    }

    // MARK: Bytes

    /// `bytes` without the bytes of invisible formatting scalars, and for each byte kept its
    /// offset in `bytes`. `bytes` is UTF-8.
    private static func visible(_ bytes: [UInt8]) -> (bytes: [UInt8], offsets: [Int]) {
        var kept: [UInt8] = []
        var offsets: [Int] = []
        kept.reserveCapacity(bytes.count)
        offsets.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
            let end = min(index + length, bytes.count)
            if length > 1, Self.isInvisible(bytes[index..<end]) {
                index = end
                continue
            }
            for offset in index..<end {
                kept.append(bytes[offset])
                offsets.append(offset)
            }
            index = end
        }
        return (kept, offsets)
    }

    /// Whether the UTF-8 sequence of one scalar is an invisible formatting character.
    private static func isInvisible(_ sequence: ArraySlice<UInt8>) -> Bool {
        guard let scalar = String(decoding: sequence, as: UTF8.self).unicodeScalars.first, sequence.count == scalar.utf8.count else {
            return false
        }
        return Redaction.isInvisibleFormat(scalar)
    }

    /// `bytes` with each occurrence of a secret (invisible characters skipped) replaced.
    private func redactedBytes(_ bytes: [UInt8]) -> [UInt8] {
        let view = Self.visible(bytes)
        var ranges: [Range<Int>] = []
        for secret in secrets where view.bytes.count >= secret.count {
            var start = 0
            while start + secret.count <= view.bytes.count {
                guard view.bytes[start] == secret[0], view.bytes[start..<start + secret.count].elementsEqual(secret) else {
                    start += 1
                    continue
                }
                ranges.append(view.offsets[start]..<view.offsets[start + secret.count - 1] + 1)
                start += secret.count
            }
        }
        guard !ranges.isEmpty else { return bytes }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var position = 0
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) where range.lowerBound >= position {
            result.append(contentsOf: bytes[position..<range.lowerBound])
            result.append(contentsOf: Self.placeholder.utf8)
            position = range.upperBound
        }
        result.append(contentsOf: bytes[position...])
        return result
    }

    /// The length in bytes of the longest end of `bytes` that is the start of a secret, invisible
    /// characters skipped (0 when none is). It begins at the ASCII byte the secret begins with,
    /// so what is shown before it ends on a scalar boundary. Only the last `longest secret - 1`
    /// visible bytes are looked at.
    private func heldSuffixLength(_ bytes: [UInt8]) -> Int {
        let tailStart = max(0, bytes.count - 4 * longestSecret)
        let view = Self.visible(Array(bytes[tailStart...]))
        var earliest: Int?
        for secret in secrets {
            for offset in max(0, view.bytes.count - secret.count + 1)..<view.bytes.count where view.bytes[offset] == secret[0] {
                guard secret.starts(with: view.bytes[offset...]) else { continue }
                earliest = min(earliest ?? offset, offset)
                break  // the earliest match is the longest for this secret
            }
        }
        guard let earliest else { return 0 }
        return bytes.count - (tailStart + view.offsets[earliest])
    }
}
