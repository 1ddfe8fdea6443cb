extension ChappieEmulator {
    /// How ``ScriptedReply/cut(_:afterEvents:ending:)`` ends a stream early.
    public enum StreamCut: Sendable, Equatable {
        /// Close the socket (TCP FIN): over HTTP the chunked body ends without its last chunk; on a
        /// WebSocket no close frame is sent, so the client reports an abnormal closure (1006).
        case close
        /// Reset the connection (TCP RST, `SO_LINGER` 0): the client's read fails with
        /// `ECONNRESET`; on a WebSocket it is an abrupt 1006 closure.
        case reset
        /// On a WebSocket, send a close frame with `code` (e.g. 1011, 1001, 1008) and `reason`
        /// (at most 123 UTF-8 bytes), RFC 6455 §7.4. Over HTTP it behaves like ``close``.
        case webSocketClose(code: UInt16, reason: String)
        /// Send nothing more and keep the connection open until the client leaves or the emulator
        /// shuts down (a reply that hangs mid-stream, for cancellation tests). On a WebSocket a
        /// `response.interrupt` still ends it with `response.incomplete` (reason `interrupted`), as
        /// the backend answers one.
        case stall
        /// Like ``stall``, but a `response.interrupt` goes unanswered too (a server that never
        /// confirms an interrupt).
        case stallIgnoringInterrupts
    }
}
