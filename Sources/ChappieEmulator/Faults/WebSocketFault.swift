extension ChappieEmulator {
    /// A fault for the next Responses WebSocket handshake.
    /// Queue with ``ChappieEmulator/enqueueWebSocketFault(_:forAccountID:)``; each fault is used by one
    /// handshake that passed the method, upgrade-header, bearer and `OpenAI-Beta` checks, in FIFO
    /// order. Faults inside a response on an open socket are ``ScriptedReply`` cases
    /// (``ScriptedReply/cut(_:afterEvents:ending:)``, ``ScriptedReply/errorEvent(status:type:code:message:)``).
    public enum WebSocketFault: Sendable, Equatable {
        /// Refuse the upgrade with this HTTP status and a `{"detail": …}` body. 426 Upgrade Required
        /// makes Codex fall back to HTTP for the session at once; 401 starts auth recovery; 403 and
        /// others are ordinary handshake failures.
        case refuseHandshake(status: Int)
        /// Accept the upgrade (101), then at once send a close frame with `code` and `reason`
        /// before reading any frame; 1008 (policy violation) with an empty reason is what the real
        /// server sends.
        case closeAfterAccept(code: UInt16, reason: String)
        /// Accept the upgrade, then close the socket without a close frame (the client sees 1006).
        case dropAfterAccept
        /// Accept the upgrade, then read nothing: the client's frames fill the TCP buffers until
        /// its sends block, as on a half-open connection whose peer stopped reading. The socket
        /// stays open until the client resets it or the emulator shuts down.
        case stopReading

        /// ``closeAfterAccept(code:reason:)`` with 1008 and an empty reason, as observed.
        public static let policyViolation = WebSocketFault.closeAfterAccept(code: 1008, reason: "")
    }
}
