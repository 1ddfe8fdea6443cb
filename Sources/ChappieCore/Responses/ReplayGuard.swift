/// Suppresses text a server replays after a reconnect and detects when the replay differs
/// (CHAPPIE-DOCS §3.4). Compares UTF-8 bytes, so a replay split differently into deltas still
/// matches, and the part after the shown prefix always starts on a character boundary (the shown
/// text ends on one, and UTF-8 is self-synchronizing).
///
/// Linear: each piece of text is compared only with the shown bytes at the same offset of the
/// current attempt, and text past the shown end is appended once. Invariant: the current attempt
/// never runs ahead of the shown text (`attemptBytes <= shown.count`).
struct ReplayGuard: Sendable {
    /// Everything shown to the consumer for this response, in UTF-8.
    private(set) var shown: [UInt8] = []
    /// Bytes received in the current attempt.
    private var attemptBytes = 0

    /// True once any text was shown.
    var hasShown: Bool { !shown.isEmpty }

    /// Starts a new attempt (a reconnect or a fallback); the shown text is kept.
    mutating func beginAttempt() { attemptBytes = 0 }

    /// Accepts the next piece of text of the current attempt and returns the part not shown yet,
    /// or nil while the attempt is still replaying. Throws
    /// ``ChappieClientError/streamingTransportReplayDiverged(_:)`` with the shown text when the
    /// attempt's text stops matching it.
    mutating func accept(_ text: String) throws -> String? {
        let count = text.utf8.count
        guard count > 0 else { return nil }
        let pending = shown.count - attemptBytes
        if pending == 0 {
            shown.append(contentsOf: text.utf8)
            attemptBytes += count
            return text
        }
        let replayed = min(count, pending)
        guard text.utf8.prefix(replayed).elementsEqual(shown[attemptBytes..<(attemptBytes + replayed)]) else {
            throw ChappieClientError.streamingTransportReplayDiverged(String(decoding: shown, as: UTF8.self))
        }
        attemptBytes += count
        guard count > replayed else { return nil }
        let fresh = text.utf8.dropFirst(replayed)
        shown.append(contentsOf: fresh)
        return String(decoding: fresh, as: UTF8.self)
    }
}
