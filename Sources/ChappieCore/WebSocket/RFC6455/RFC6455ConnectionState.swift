#if os(Linux)
import Foundation

/// The state one connection shares between its I/O thread and the tasks that call it, kept in a
/// ``LockedBox`` by ``RFC6455ConnectionCore``. Waiters are keyed by id so a cancelled caller can
/// leave without disturbing the others; a continuation is resumed by whoever removes it, once.
struct RFC6455ConnectionState {
    /// Where the connection is.
    enum Phase {
        /// Resolving, connecting, TLS, opening handshake.
        case connecting
        /// Open: messages flow.
        case open
        /// Ended: ``terminal`` says why.
        case ended
    }

    /// Work the I/O thread takes on each turn of its loop.
    struct Work {
        /// Text messages to send, with the id of the waiting caller.
        var messages: [(id: UInt64, payload: [UInt8])] = []
        /// The close code a caller asked for, if any.
        var closeCode: Int?
        /// Whether the connect was abandoned (cancelled or timed out): tear down at once.
        var abandoned = false
        /// Whether the consumer is too far behind: stop reading.
        var readingPaused = false
    }

    var phase = Phase.connecting
    /// Whether the handshake completed (the connection may have ended since; the connect still
    /// succeeded and the caller reads what arrived, then the end).
    var wasOpened = false
    var connectWaiter: CheckedContinuation<Void, any Error>?
    var abandoned = false
    var responseHeaders: [(name: String, value: String)] = []

    var inbox = FIFOQueue<WebSocketMessage>()
    var inboxBytes = 0
    var readingPaused = false
    var receivers: [(id: UInt64, continuation: CheckedContinuation<WebSocketMessage, any Error>)] = []

    var outgoing: [(id: UInt64, payload: [UInt8])] = []
    var senders: [UInt64: CheckedContinuation<Void, any Error>] = [:]

    var closeCode: Int?
    var terminal: WebSocketError?
    var cancelledIDs: Set<UInt64> = []
    var nextID: UInt64 = 0

    /// Messages waiting for ``RFC6455ConnectionCore/receive()``.
    var inboxCount: Int { inbox.count }

    /// Takes the oldest waiting message.
    mutating func popMessage() -> WebSocketMessage? {
        guard let message = inbox.popFirst() else { return nil }
        inboxBytes -= Self.size(of: message)
        return message
    }

    /// The payload size of `message`, in bytes (for the inbox watermarks).
    static func size(of message: WebSocketMessage) -> Int {
        switch message {
        case .text(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }
}
#endif
