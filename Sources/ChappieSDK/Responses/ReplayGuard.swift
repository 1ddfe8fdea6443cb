/// Suppresses text a server replays after a reconnect and detects when the replay differs
/// (CHAPPIE-DOCS §3.4). Compares UTF-8 bytes, so a replay split differently into deltas still
/// matches, and the part after the shown prefix always starts on a character boundary.
struct ReplayGuard: Sendable {
    /// Everything shown to the consumer for this response.
    private(set) var shown: [UInt8] = []
    /// Everything received in the current attempt.
    private var attempt: [UInt8] = []

    /// Starts a new attempt (a reconnect or a fallback); the shown text is kept.
    mutating func beginAttempt() { attempt.removeAll(keepingCapacity: true) }

    /// Accepts the next piece of text of the current attempt and returns the part not shown yet,
    /// or nil while the attempt is still replaying. Throws
    /// ``ChappieClientError/streamingTransportReplayDiverged(_:)`` with the shown text when the
    /// attempt's text stops matching it.
    mutating func accept(_ text: String) throws -> String? {
        attempt.append(contentsOf: text.utf8)
        let overlap = min(attempt.count, shown.count)
        guard attempt[..<overlap].elementsEqual(shown[..<overlap]) else {
            throw ChappieClientError.streamingTransportReplayDiverged(String(decoding: shown, as: UTF8.self))
        }
        guard attempt.count > shown.count else { return nil }
        let fresh = String(decoding: attempt[shown.count...], as: UTF8.self)
        shown = attempt
        return fresh
    }
}
