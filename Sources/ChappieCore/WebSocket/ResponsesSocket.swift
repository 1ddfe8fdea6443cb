import ChappieTransport
import Foundation

/// The client's Responses WebSocket (PROTOCOL §6): at most one open connection, reused across
/// requests and turns so that requests can be incremental (``IncrementalRequest``). A socket is
/// used by one request at a time (``take()`` / ``keep(_:)``) and never reused across a sign-out,
/// for another account, or past ``maximumAge`` (the backend closes sockets at 60 minutes).
actor ResponsesSocket {
    /// An open connection and what it remembers.
    struct Open: Sendable {
        /// The connection.
        let connection: any WebSocketConnection
        /// The ChatGPT account whose token opened it.
        let accountID: String?
        /// The slot's sign-out count when it opened.
        let signOutMark: Int
        /// When it opened.
        let openedAt: Date
        /// The last completed exchange, for incremental requests.
        var memory: IncrementalRequest.Memory?

        /// Whether it may carry a request for `accountID` now.
        func isUsable(accountID: String?, signOutMark: Int, now: Date) -> Bool {
            self.accountID == accountID && self.signOutMark == signOutMark && now.timeIntervalSince(openedAt) < ResponsesSocket.maximumAge
        }
    }

    /// Seconds a socket is used before a new one is opened: under the backend's 60-minute limit.
    static let maximumAge: TimeInterval = 55 * 60

    private var idle: Open?
    /// A socket whose response the caller cancelled, while its interrupt is answered
    /// (``ResponseInterrupt``): the socket, or nil when it was closed.
    private var settling: Task<Open?, Never>?

    /// The idle socket, if any, for the caller's exclusive use. A socket still settling an
    /// interrupt is awaited first (at most ``ResponseInterrupt/answerTimeout``; cancelling the
    /// caller closes it instead).
    func take() async -> Open? {
        if let settling {
            self.settling = nil
            let settled = await withTaskCancellationHandler { await settling.value } onCancel: { settling.cancel() }
            if let settled {
                guard idle == nil else {
                    settled.connection.close(code: Wire.normalClosure)
                    return takeIdle()
                }
                return settled
            }
        }
        return takeIdle()
    }

    private func takeIdle() -> Open? {
        defer { idle = nil }
        return idle
    }

    /// Keeps `socket` for the next request (closing any other idle one).
    func keep(_ socket: Open) {
        idle?.connection.close(code: Wire.normalClosure)
        idle = socket
    }

    /// Interrupts `responseID`, which the caller stopped reading, on `socket` in the background;
    /// the socket is kept for the next request when the server confirms in time
    /// (``ResponseInterrupt/settle(_:responseID:timeout:)``), closed otherwise. Returns at once.
    func interrupt(_ socket: Open, responseID: String) {
        settling?.cancel()
        settling = Task { await ResponseInterrupt.settle(socket, responseID: responseID) }
    }

    /// Whether a socket is kept (idle, or settling an interrupt).
    var holdsSocket: Bool { idle != nil || settling != nil }

    /// Closes the idle socket (and one still settling an interrupt) with a normal closure.
    func close() {
        settling?.cancel()
        settling = nil
        idle?.connection.close(code: Wire.normalClosure)
        idle = nil
    }

    deinit {
        settling?.cancel()
        idle?.connection.close(code: Wire.normalClosure)
    }

    private enum Wire {
        static let normalClosure = 1000
    }
}
