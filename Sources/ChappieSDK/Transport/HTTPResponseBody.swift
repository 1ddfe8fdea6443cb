import Foundation

/// The body of a streaming response: chunks in arrival order (their boundaries mean nothing),
/// held in a bounded buffer between the network and the consumer.
///
/// Flow control (DESIGN §4): when more than ``FlowControl/highWater`` bytes wait unread, the
/// producer is asked to pause (URLSession: `suspend()` on the data task) and, once the consumer has
/// read the buffer down to ``FlowControl/lowWater``, to resume. Where pausing is not honoured
/// (FoundationNetworking on Linux ignores `suspend()`: measured, DESIGN §9) the buffer instead has a
/// hard cap, ``FlowControl/hardCap``, past which the body fails with
/// ``TransportError/consumerTooSlow(_:)``: loudly, never by dropping bytes. A body longer than
/// ``FlowControl/maximumBodyBytes`` in total fails with ``TransportError/responseTooLarge(_:)``.
///
/// Ending iteration early, or cancelling the reading task, must be followed by ``cancel()``
/// (every consumer in the SDK does it in a `defer`); the network request then stops at once.
struct HTTPResponseBody: AsyncSequence, Sendable {
    typealias Element = Data

    /// The buffer shared by the producer (the transport) and the consumer.
    let buffer: ResponseBodyBuffer

    /// A body fed through the returned producer (test doubles and the emulator-backed transports).
    static func makeStream(flowControl: FlowControl = .unbounded) -> (HTTPResponseBody, ResponseBodyBuffer) {
        let buffer = ResponseBodyBuffer(flowControl: flowControl)
        return (HTTPResponseBody(buffer: buffer), buffer)
    }

    /// Stops the network request (if it still runs) and ends the body.
    func cancel() { buffer.cancel() }

    /// Reads the whole body into memory, failing past `maximumBytes`. Throws
    /// ``TransportError`` or `CancellationError`.
    func collect(maximumBytes: Int) async throws -> Data {
        defer { cancel() }
        var data = Data()
        for try await chunk in self {
            guard data.count + chunk.count <= maximumBytes else { throw TransportError.responseTooLarge(maximumBytes) }
            data.append(chunk)
        }
        return data
    }

    /// Reads at most `maximumBytes` of the body (an error body, say) and stops the request.
    func prefix(maximumBytes: Int) async -> Data {
        defer { cancel() }
        var data = Data()
        do {
            for try await chunk in self {
                data.append(chunk.prefix(maximumBytes - data.count))
                if data.count >= maximumBytes { break }
            }
        } catch {}
        return data
    }

    /// Reads the rest of the body in the background and then stops the request: a response whose
    /// last event has been read is left to end on its own, so its connection stays open for the
    /// next request (keep-alive), but for no more than `seconds` or 1 MiB of further bytes.
    func release(within seconds: TimeInterval) {
        let body = self
        Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { _ = await body.prefix(maximumBytes: 1 << 20) }
                group.addTask { try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9)) }
                await group.next()
                group.cancelAll()
            }
            body.cancel()
        }
    }

    /// Iterates the chunks.
    struct AsyncIterator: AsyncIteratorProtocol {
        let buffer: ResponseBodyBuffer

        /// The next chunk; nil at the end. Throws the transport's failure or `CancellationError`.
        mutating func next() async throws -> Data? { try await buffer.next() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(buffer: buffer) }

    /// How the buffer bounds itself.
    struct FlowControl: Sendable {
        /// Unread bytes above which the producer is paused.
        var highWater: Int
        /// Unread bytes at or below which a paused producer resumes.
        var lowWater: Int
        /// Unread bytes past which the body fails, where pausing is not honoured; nil where it is.
        var hardCap: Int?
        /// Total body bytes past which the body fails.
        var maximumBodyBytes: Int
        /// Pauses the producer; nil when it cannot be paused.
        var pause: (@Sendable () -> Void)?
        /// Resumes a paused producer.
        var resume: (@Sendable () -> Void)?
        /// Stops the producer for good (the consumer went away).
        var stop: (@Sendable () -> Void)?

        /// No bounds and no producer to control (test doubles).
        static let unbounded = FlowControl(highWater: .max, lowWater: .max, hardCap: nil, maximumBodyBytes: .max)
    }
}

/// The buffer behind an ``HTTPResponseBody``: the producer yields chunks and finishes; the consumer
/// awaits them one at a time. Thread-safe; chunks are kept in a FIFO with a moving head, so taking
/// one costs O(1).
final class ResponseBodyBuffer: Sendable {
    private struct State {
        var chunks: [Data] = []
        var head = 0
        var unreadBytes = 0
        var totalBytes = 0
        var paused = false
        var ended = false
        var failure: (any Error)?
        var waiter: CheckedContinuation<Data?, any Error>?
        var waiterID = 0
    }

    private let state = LockedBox(State())
    private let flowControl: HTTPResponseBody.FlowControl

    init(flowControl: HTTPResponseBody.FlowControl) { self.flowControl = flowControl }

    deinit {
        // The consumer dropped the body without cancelling it: stop the request anyway.
        if !state.withLock({ $0.ended }) { flowControl.stop?() }
    }

    /// Adds a chunk from the network (ignored after the end).
    func yield(_ chunk: Data) {
        guard !chunk.isEmpty else { return }
        enum Action { case none, deliver(CheckedContinuation<Data?, any Error>), pause, fail(TransportError) }
        let action = state.withLock { state -> Action in
            guard !state.ended else { return .none }
            state.totalBytes += chunk.count
            guard state.totalBytes <= flowControl.maximumBodyBytes else { return .fail(.responseTooLarge(flowControl.maximumBodyBytes)) }
            if let waiter = state.waiter {
                state.waiter = nil
                return .deliver(waiter)
            }
            state.chunks.append(chunk)
            state.unreadBytes += chunk.count
            if let cap = flowControl.hardCap, state.unreadBytes > cap { return .fail(.consumerTooSlow(cap)) }
            if state.unreadBytes > flowControl.highWater, !state.paused, flowControl.pause != nil {
                state.paused = true
                return .pause
            }
            return .none
        }
        switch action {
        case .none: break
        case .deliver(let waiter): waiter.resume(returning: chunk)
        case .pause: flowControl.pause?()
        case .fail(let error):
            flowControl.stop?()
            abort(with: error)
        }
    }

    /// Ends the body: normally (nil) or with `error`. Later calls are ignored.
    func finish(throwing error: (any Error)? = nil) {
        let waiter = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
            guard !state.ended else { return nil }
            state.ended = true
            state.failure = error
            defer { state.waiter = nil }
            return state.chunks.count > state.head ? nil : state.waiter
        }
        guard let waiter else { return }
        if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
    }

    /// Ends the body at once with `error`, dropping what was not read (the body failed as a whole).
    private func abort(with error: any Error) {
        state.withLock { state in
            state.chunks.removeAll()
            state.head = 0
            state.unreadBytes = 0
        }
        finish(throwing: error)
    }

    /// The consumer is done: stops the producer and fails any later read with `CancellationError`.
    func cancel() {
        let shouldStop = state.withLock { state -> Bool in
            state.chunks.removeAll()
            state.head = 0
            state.unreadBytes = 0
            guard !state.ended else { return false }
            state.ended = true
            state.failure = CancellationError()
            return true
        }
        if shouldStop { flowControl.stop?() }
    }

    /// The next chunk, waiting for one; nil at the end. Throws the producer's failure or
    /// `CancellationError` when the calling task is cancelled.
    func next() async throws -> Data? {
        enum Ready { case chunk(Data, resume: Bool), end, failure(any Error), wait(id: Int) }
        let ready = state.withLock { state -> Ready in
            if let (chunk, resume) = Self.take(from: &state, lowWater: flowControl.lowWater) { return .chunk(chunk, resume: resume) }
            if state.ended { return state.failure.map(Ready.failure) ?? .end }
            state.waiterID += 1
            return .wait(id: state.waiterID)
        }
        let id: Int
        switch ready {
        case .chunk(let chunk, let resume):
            if resume { flowControl.resume?() }
            return chunk
        case .end: return nil
        case .failure(let error): throw error
        case .wait(let waiterID): id = waiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                enum Outcome { case installed, chunk(Data, resume: Bool), end, failure(any Error) }
                let outcome = state.withLock { state -> Outcome in
                    if let (chunk, resume) = Self.take(from: &state, lowWater: flowControl.lowWater) { return .chunk(chunk, resume: resume) }
                    if state.ended { return state.failure.map(Outcome.failure) ?? .end }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiter = continuation
                    state.waiterID = id
                    return .installed
                }
                switch outcome {
                case .installed: break
                case .chunk(let chunk, let resume):
                    if resume { flowControl.resume?() }
                    continuation.resume(returning: chunk)
                case .end: continuation.resume(returning: nil)
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
                guard state.waiterID == id else { return nil }
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Takes the oldest unread chunk; `resume` says whether a paused producer should resume.
    private static func take(from state: inout State, lowWater: Int) -> (Data, resume: Bool)? {
        guard state.head < state.chunks.count else { return nil }
        let chunk = state.chunks[state.head]
        state.head += 1
        state.unreadBytes -= chunk.count
        if state.head == state.chunks.count {
            state.chunks.removeAll(keepingCapacity: true)
            state.head = 0
        } else if state.head >= 64, state.head * 2 >= state.chunks.count {
            state.chunks.removeFirst(state.head)
            state.head = 0
        }
        let resume = state.paused && state.unreadBytes <= lowWater
        if resume { state.paused = false }
        return (chunk, resume)
    }
}

/// The body stream type of ``HTTPTransport``.
typealias HTTPByteStream = HTTPResponseBody
