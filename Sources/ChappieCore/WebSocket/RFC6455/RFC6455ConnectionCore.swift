#if os(Linux)
import Foundation

/// The part of a connection both sides hold: the tasks that send, receive and close, and the
/// connection's I/O thread (``RFC6455IOLoop``). All shared state sits in one ``LockedBox``;
/// continuations are resumed outside the lock. Every call from a task returns or suspends at
/// once and never blocks: the socket belongs to the I/O thread, which ``wakeup`` interrupts.
///
/// Received messages wait in a bounded inbox: past ``Policy/inboxHighWaterMessages`` messages or
/// ``Policy/inboxHighWaterBytes`` bytes the I/O thread stops reading (TCP flow control then holds
/// the server back) until the consumer has taken half of them.
final class RFC6455ConnectionCore: Sendable {
    /// Inbox watermarks.
    enum Policy {
        /// Reading stops at this many waiting messages.
        static let inboxHighWaterMessages = 1024
        /// Reading stops at this many waiting payload bytes (1 MiB).
        static let inboxHighWaterBytes = 1 << 20
    }

    /// Interrupts the I/O thread's poll.
    let wakeup: WakeupSignal
    private let state = LockedBox(RFC6455ConnectionState())

    /// A core with its wakeup signal.
    init(wakeup: WakeupSignal) { self.wakeup = wakeup }

    // MARK: Called by tasks

    /// Waits until the opening handshake has completed.
    ///
    /// - Throws: the ``WebSocketError`` the connect failed with, or `CancellationError` (the
    ///   connect is then abandoned and the I/O thread tears the socket down).
    func waitUntilOpen() async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.wasOpened { return .success(()) }
                    if state.abandoned { return .failure(state.terminal ?? CancellationError()) }
                    switch state.phase {
                    case .open: return .success(())
                    case .ended: return .failure(state.terminal ?? .closed(code: WebSocketCloseCode.abnormalClosure, reason: ""))
                    case .connecting:
                        state.connectWaiter = continuation
                        return nil
                    }
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            abandon(CancellationError())
        }
    }

    /// Gives up on a connect still in progress (cancellation, or the connect deadline): the
    /// waiter gets `error`; the I/O thread stops at its next wakeup.
    func abandon(_ error: any Error) {
        let waiter: CheckedContinuation<Void, any Error>? = state.withLock { state in
            guard state.phase == .connecting, !state.abandoned else { return nil }
            state.abandoned = true
            if let error = error as? WebSocketError { state.terminal = error }
            defer { state.connectWaiter = nil }
            return state.connectWaiter
        }
        wakeup.signal()
        waiter?.resume(throwing: error)
    }

    /// Whether the connect was abandoned (cancelled, timed out, or closed before it opened).
    var isAbandoned: Bool { state.withLock { $0.abandoned } }

    /// The handshake response's header fields.
    var responseHeaders: [(name: String, value: String)] { state.withLock { $0.responseHeaders } }

    /// Queues `payload` as one text message and waits until it is written to the socket.
    ///
    /// - Throws: the connection's terminal ``WebSocketError`` when it has ended or is closing;
    ///   `CancellationError` when the caller is cancelled (the connection is then closed, since a
    ///   message half written cannot be taken back).
    func send(_ payload: [UInt8]) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let failure: (any Error)? = state.withLock { state in
                    if state.cancelledIDs.remove(id) != nil { return CancellationError() }
                    if let terminal = state.terminal { return terminal }
                    state.outgoing.append((id, payload))
                    state.senders[id] = continuation
                    return nil
                }
                if let failure { continuation.resume(throwing: failure) } else { wakeup.signal() }
            }
        } onCancel: {
            cancel(id: id, closing: true)
        }
    }

    /// The next message.
    ///
    /// - Throws: the terminal ``WebSocketError`` once the connection has ended and every message
    ///   received before that was taken (a close from the server is `.closed(code:reason:)`); or
    ///   `CancellationError`, which leaves the connection open: no message is lost (one that
    ///   arrives later waits for the next call), so the caller may still use or close it.
    func receive() async throws -> WebSocketMessage {
        let id: UInt64 = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<WebSocketMessage, any Error>) in
                let (outcome, resumeReading): (Result<WebSocketMessage, any Error>?, Bool) = state.withLock { state in
                    if state.cancelledIDs.remove(id) != nil { return (.failure(CancellationError()), false) }
                    if let message = state.popMessage() {
                        let resume = state.readingPaused
                            && state.inboxCount <= Policy.inboxHighWaterMessages / 2 && state.inboxBytes <= Policy.inboxHighWaterBytes / 2
                        if resume { state.readingPaused = false }
                        return (.success(message), resume)
                    }
                    if let terminal = state.terminal { return (.failure(terminal), false) }
                    state.receivers.append((id, continuation))
                    return (nil, false)
                }
                if resumeReading { wakeup.signal() }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            cancel(id: id, closing: false)
        }
    }

    /// Starts the close handshake with `code` (a code a client may not send becomes 1000): waiting
    /// and later calls fail with `.closed(code:reason:)`; the I/O thread sends the close frame,
    /// waits briefly for the server's, and closes the socket. Calling it again does nothing.
    func close(code: Int) {
        let wireCode = WebSocketCloseCode.isValidOnTheWire(code) ? code : WebSocketCloseCode.normal
        let waiters = state.withLock { state -> Waiters in
            guard state.closeCode == nil else { return Waiters() }
            state.closeCode = wireCode
            if state.phase == .connecting { state.abandoned = true }
            return Self.end(&state, with: .closed(code: wireCode, reason: Wire.closedByClient), dropInbox: true)
        }
        wakeup.signal()
        waiters.resume()
    }

    /// Ends the waiting call `id` with `CancellationError`; `closing` closes the connection too
    /// (a cancelled send, whose message may be half written).
    private func cancel(id: UInt64, closing: Bool) {
        let waiter: Waiters = state.withLock { state in
            var waiter = Waiters()
            if let index = state.receivers.firstIndex(where: { $0.id == id }) {
                waiter.receivers.append(state.receivers.remove(at: index).continuation)
            } else if let sender = state.senders.removeValue(forKey: id) {
                state.outgoing.removeAll { $0.id == id }
                waiter.senders.append(sender)
            } else {
                state.cancelledIDs.insert(id)
            }
            return waiter
        }
        waiter.resume(throwing: CancellationError())
        if closing { close(code: WebSocketCloseCode.normal) }
    }

    // MARK: Called by the I/O thread

    /// The handshake succeeded: the connect waiter returns. False when the connect was abandoned
    /// meanwhile (tear down).
    func opened(responseHeaders: [(name: String, value: String)]) -> Bool {
        let (waiter, proceed): (CheckedContinuation<Void, any Error>?, Bool) = state.withLock { state in
            guard !state.abandoned, state.phase == .connecting else { return (nil, false) }
            state.phase = .open
            state.wasOpened = true
            state.responseHeaders = responseHeaders
            defer { state.connectWaiter = nil }
            return (state.connectWaiter, true)
        }
        waiter?.resume()
        return proceed
    }

    /// Takes the queued work.
    func takeWork() -> RFC6455ConnectionState.Work {
        state.withLock { state in
            var work = RFC6455ConnectionState.Work()
            work.messages = state.outgoing
            state.outgoing.removeAll()
            work.closeCode = state.closeCode
            work.abandoned = state.abandoned
            work.readingPaused = state.readingPaused
            return work
        }
    }

    /// Hands a received message to the consumer; true when reading should pause.
    func deliver(_ message: WebSocketMessage) -> Bool {
        let (receiver, pause): (CheckedContinuation<WebSocketMessage, any Error>?, Bool) = state.withLock { state in
            guard state.terminal == nil else { return (nil, false) }
            if !state.receivers.isEmpty { return (state.receivers.removeFirst().continuation, false) }
            state.inbox.append(message)
            state.inboxBytes += RFC6455ConnectionState.size(of: message)
            let pause = state.inboxCount >= Policy.inboxHighWaterMessages || state.inboxBytes >= Policy.inboxHighWaterBytes
            if pause { state.readingPaused = true }
            return (nil, pause)
        }
        receiver?.resume(returning: message)
        return pause
    }

    /// The message with `id` is on the socket: its sender returns.
    func sent(id: UInt64) {
        let sender = state.withLock { $0.senders.removeValue(forKey: id) }
        sender?.resume()
    }

    /// The connection ended with `error` (the first call wins): waiting receivers (once the inbox
    /// is empty), senders and a connect waiter get it.
    func end(with error: WebSocketError) {
        let waiters = state.withLock { Self.end(&$0, with: error, dropInbox: false) }
        waiters.resume()
    }

    // MARK: Helpers

    private struct Waiters {
        var connect: CheckedContinuation<Void, any Error>?
        var receivers: [CheckedContinuation<WebSocketMessage, any Error>] = []
        var senders: [CheckedContinuation<Void, any Error>] = []
        var error: WebSocketError?

        func resume() {
            guard let error else { return }
            resume(throwing: error)
        }

        func resume(throwing error: any Error) {
            connect?.resume(throwing: error)
            receivers.forEach { $0.resume(throwing: error) }
            senders.forEach { $0.resume(throwing: error) }
        }
    }

    private static func end(_ state: inout RFC6455ConnectionState, with error: WebSocketError, dropInbox: Bool) -> Waiters {
        if dropInbox {
            state.inbox.removeAll()
            state.inboxBytes = 0
        }
        guard state.terminal == nil else { return Waiters() }
        state.terminal = error
        state.phase = .ended
        var waiters = Waiters(error: error)
        waiters.connect = state.connectWaiter
        state.connectWaiter = nil
        waiters.receivers = state.receivers.map(\.continuation)
        state.receivers.removeAll()
        waiters.senders = Array(state.senders.values)
        state.senders.removeAll()
        state.outgoing.removeAll()
        return waiters
    }

    private enum Wire {
        static let closedByClient = "closed by client"
    }
}
#endif
