import ChappieTransport

/// The backend's sticky-routing token for one turn (`x-codex-turn-state`, PROTOCOL §4.6): the
/// first value the server gives in a turn (a response header over HTTP, the handshake or a
/// `response.metadata` event over WebSocket) is sent back with every later request of the same
/// turn (tool-call follow-ups, retries) — as a header over HTTP, in `client_metadata` over
/// WebSocket — and never on a new turn, which gets a new box.
final class TurnState: Sendable {
    private let token = LockedBox<String?>(nil)

    /// The token to send, if the server gave one this turn.
    var value: String? { token.withLock { $0 } }

    /// Records `value` unless the turn already has one (the first value wins). A value that is
    /// not a valid HTTP field value (CR, LF, controls: a hostile or broken server) is dropped: it
    /// could never be sent back, and only sticky routing is lost.
    func record(_ value: String?) {
        guard let value, !value.isEmpty, HTTPFieldSyntax.isFieldValue(value) else { return }
        token.withLock { if $0 == nil { $0 = value } }
    }

    /// The header name, in both directions.
    static let headerName = "x-codex-turn-state"
}
