import ChappieTransport

/// An event whose text may be merged with the next event of the same kind when a consumer falls
/// behind (text deltas: chunk boundaries carry no meaning).
package protocol ChappieMergeableEvent: Sendable {
    /// The kind and text of a mergeable delta; nil for every other event.
    var mergeableText: (kind: Int, text: String)? { get }
    /// The delta of `kind` carrying `text`.
    static func mergedText(kind: Int, text: String) -> Self
}

/// The bridge between a producer task (a turn) and the consumer of a public
/// `AsyncThrowingStream`, built so that a slow consumer costs memory for the text it has not read
/// yet and little more: once ``mergeThreshold`` events wait unread, further text deltas are merged
/// into one, appended in place (linear), while other events keep their place and order. A
/// consumer that keeps up (or lags by fewer events) gets every delta as it was produced.
///
/// ``stream(producer:)`` makes the public stream: the producer runs in its own task, which is
/// cancelled when the consumer stops iterating (the stream is dropped) or its task is cancelled.
package final class EventChannel<Element: ChappieMergeableEvent>: Sendable {
    private struct State {
        var buffer = FIFOQueue<Element>()
        var tail: (kind: Int, text: String)?
        var ended = false
        var failure: (any Error)?
        var waiter: CheckedContinuation<Element?, any Error>?
        /// Events that entered the delivery order (queued, handed over, or a merged delta).
        var entered = 0
        /// Events ``next()`` returned.
        var handedOut = 0
        /// ``sendAndWait(_:)`` callers, each with the position of its event in the delivery order.
        var deliveryWaiters: [(id: UInt64, position: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var nextDeliveryID: UInt64 = 0
    }

    private let state = LockedBox(State())

    /// Unread events past which text deltas are merged.
    package static var mergeThreshold: Int { 256 }

    /// What ``next()`` found.
    private enum Outcome { case event(Element), end, failure(any Error), wait }

    package init() {}

    /// Hands `event` to the consumer, or queues it (merging it into a waiting delta of its kind).
    package func send(_ event: Element) {
        let waiter = state.withLock { state in Self.enqueue(event, into: &state, mergeable: true).waiter }
        waiter?.resume(returning: event)
    }

    /// Sends `event` (never merged) and returns once the consumer has dealt with it: it asked
    /// for the event after it (a `for try await` loop finished its body for `event`), or the
    /// stream ended, or the calling task was cancelled. So what `event` announces (an approval
    /// request) is on the consumer's screen before the producer goes on.
    package func sendAndWait(_ event: Element) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (waiter, wait) = state.withLock { state -> (CheckedContinuation<Element?, any Error>?, Bool) in
                    guard !state.ended, !Task.isCancelled else { return (nil, false) }
                    let (waiter, position) = Self.enqueue(event, into: &state, mergeable: false)
                    state.nextDeliveryID += 1
                    state.deliveryWaiters.append((state.nextDeliveryID, position, continuation))
                    return (waiter, true)
                }
                waiter?.resume(returning: event)
                if !wait { continuation.resume() }
            }
        } onCancel: {
            Self.resumeDeliveryWaiters(in: state) { _ in true }
        }
    }

    /// Queues `event` or hands it to a waiting consumer; returns that consumer and the event's
    /// position in the delivery order.
    private static func enqueue(_ event: Element, into state: inout State, mergeable: Bool)
        -> (waiter: CheckedContinuation<Element?, any Error>?, position: Int) {
        guard !state.ended else { return (nil, state.entered) }
        if let waiter = state.waiter, state.buffer.isEmpty, state.tail == nil {
            state.waiter = nil
            state.entered += 1
            state.handedOut += 1
            return (waiter, state.entered - 1)
        }
        if mergeable, let piece = event.mergeableText, state.buffer.count >= Self.mergeThreshold {
            if state.tail?.kind == piece.kind {
                state.tail?.text.append(piece.text)
            } else {
                Self.flushTail(&state)
                state.tail = piece
            }
            return (nil, state.entered)
        }
        Self.flushTail(&state)
        state.buffer.append(event)
        state.entered += 1
        return (nil, state.entered - 1)
    }

    /// Resumes the ``sendAndWait(_:)`` callers whose position `done` accepts.
    private static func resumeDeliveryWaiters(in state: LockedBox<State>, _ done: (Int) -> Bool) {
        let resumed = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            let (finished, waiting) = (state.deliveryWaiters.filter { done($0.position) }, state.deliveryWaiters.filter { !done($0.position) })
            state.deliveryWaiters = waiting
            return finished.map(\.continuation)
        }
        for continuation in resumed { continuation.resume() }
    }

    /// Ends the stream after the queued events: normally (nil) or with `error`.
    package func finish(throwing error: (any Error)? = nil) {
        defer { Self.resumeDeliveryWaiters(in: state) { _ in true } }
        let waiter = state.withLock { state -> CheckedContinuation<Element?, any Error>? in
            guard !state.ended else { return nil }
            state.ended = true
            state.failure = error
            guard state.buffer.isEmpty, state.tail == nil else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        guard let waiter else { return }
        if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
    }

    /// The next event; nil after a normal end. Throws the producer's error, or
    /// `CancellationError` when the consuming task is cancelled.
    package func next() async throws -> Element? {
        // Asking for more means every event handed out so far has been dealt with.
        let handedOut = state.withLock { $0.handedOut }
        Self.resumeDeliveryWaiters(in: state) { $0 < handedOut }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element?, any Error>) in
                let outcome = state.withLock { state -> Outcome in
                    if let event = state.buffer.popFirst() {
                        state.handedOut += 1
                        return .event(event)
                    }
                    if let tail = state.tail {
                        state.tail = nil
                        state.entered += 1
                        state.handedOut += 1
                        return .event(.mergedText(kind: tail.kind, text: tail.text))
                    }
                    if state.ended { return state.failure.map(Outcome.failure) ?? .end }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiter = continuation
                    return .wait
                }
                switch outcome {
                case .event(let event): continuation.resume(returning: event)
                case .end: continuation.resume(returning: nil)
                case .failure(let error): continuation.resume(throwing: error)
                case .wait: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Element?, any Error>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(throwing: CancellationError())
            Self.resumeDeliveryWaiters(in: state) { _ in true }
        }
    }

    private static func flushTail(_ state: inout State) {
        guard let tail = state.tail else { return }
        state.buffer.append(.mergedText(kind: tail.kind, text: tail.text))
        state.entered += 1
        state.tail = nil
    }

    /// A public stream fed by `producer`, which runs in a new task and sends its events into the
    /// channel; its result (or error) ends the stream. Dropping the stream, or cancelling the
    /// consuming task, cancels the producer's task.
    package static func stream(
        producer: @escaping @Sendable (EventChannel<Element>) async throws -> Void
    ) -> AsyncThrowingStream<Element, any Error> {
        let channel = EventChannel<Element>()
        let task = Task {
            do {
                try await producer(channel)
                channel.finish()
            } catch {
                channel.finish(throwing: error)
            }
        }
        let handle = ProducerHandle(task: task)
        return AsyncThrowingStream {
            do {
                return try await channel.next()
            } catch {
                handle.cancel()
                throw error
            }
        }
    }
}

/// Cancels the producer task when the consumer's stream goes away.
private final class ProducerHandle: Sendable {
    private let task: Task<Void, Never>

    init(task: Task<Void, Never>) { self.task = task }

    func cancel() { task.cancel() }

    deinit { task.cancel() }
}
