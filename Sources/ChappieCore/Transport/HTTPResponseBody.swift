import Foundation

/// The body of a streaming response: chunks in arrival order (their boundaries mean nothing),
/// held in a bounded buffer between the network and the consumer.
///
/// Flow control (DESIGN §4): when more than ``FlowControl/highWater`` bytes wait unread, the
/// producer is asked to pause (libcurl: `CURL_WRITEFUNC_PAUSE`; URLSession: `suspend()` on the data
/// task) and, once the consumer has read the buffer down to ``FlowControl/lowWater``, to resume.
/// The two calls never cross: they are made one at a time, and each caller re-reads what the
/// buffer wants after its call, so the producer always ends in the state last asked for (a resume
/// overtaking its pause would otherwise leave a download paused for good). Where pausing is not
/// honoured (FoundationNetworking on Linux ignores `suspend()`: measured, DESIGN §9) unread bytes
/// are bounded by the total cap alone: a body longer than ``FlowControl/maximumBodyBytes`` fails
/// with ``TransportError/responseTooLarge(_:)``, loudly, never by dropping bytes.
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
        /// Total body bytes past which the body fails.
        var maximumBodyBytes: Int
        /// Pauses the producer; nil when it cannot be paused.
        var pause: (@Sendable () -> Void)?
        /// Resumes a paused producer.
        var resume: (@Sendable () -> Void)?
        /// Stops the producer for good (the consumer went away).
        var stop: (@Sendable () -> Void)?

        /// No bounds and no producer to control (test doubles).
        static let unbounded = FlowControl(highWater: .max, lowWater: .max, maximumBodyBytes: .max)
    }
}

/// The buffer behind an ``HTTPResponseBody``: the producer yields chunks and finishes; the consumer
/// awaits them one at a time. Thread-safe; taking a chunk costs O(1) (``FIFOQueue``).
final class ResponseBodyBuffer: Sendable {
    private struct State {
        var chunks = FIFOQueue<Data>()
        var unreadBytes = 0
        var totalBytes = 0
        /// What the buffer wants of the producer.
        var paused = false
        /// What the producer was last told (``ResponseBodyBuffer/applyFlowControl()``).
        var producerPaused = false
        /// True while a caller makes pause and resume calls.
        var applyingFlowControl = false
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
            if state.unreadBytes > flowControl.highWater, !state.paused, flowControl.pause != nil {
                state.paused = true
                return .pause
            }
            return .none
        }
        switch action {
        case .none: break
        case .deliver(let waiter): waiter.resume(returning: chunk)
        case .pause: applyFlowControl()
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
            return state.chunks.isEmpty ? state.waiter : nil
        }
        guard let waiter else { return }
        if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
    }

    /// Ends the body at once with `error`, dropping what was not read (the body failed as a whole).
    private func abort(with error: any Error) {
        state.withLock { state in
            state.chunks.removeAll()
            state.unreadBytes = 0
        }
        finish(throwing: error)
    }

    /// The consumer is done: stops the producer and fails any later read with `CancellationError`.
    func cancel() {
        let shouldStop = state.withLock { state -> Bool in
            state.chunks.removeAll()
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
            if resume { applyFlowControl() }
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
                    if resume { applyFlowControl() }
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
        guard let chunk = state.chunks.popFirst() else { return nil }
        state.unreadBytes -= chunk.count
        let resume = state.paused && state.unreadBytes <= lowWater
        if resume { state.paused = false }
        return (chunk, resume)
    }

    /// Tells the producer to pause or resume until it is in the state the buffer wants. One caller
    /// at a time makes the calls (outside the lock: they may block); a caller that finds another
    /// at work leaves the change to it, and that one reads the wish again after each call.
    private func applyFlowControl() {
        var entered = false
        while true {
            let pause = state.withLock { state -> Bool? in
                if !entered {
                    guard !state.applyingFlowControl else { return nil }
                    state.applyingFlowControl = true
                    entered = true
                }
                guard state.paused != state.producerPaused else {
                    state.applyingFlowControl = false
                    return nil
                }
                state.producerPaused = state.paused
                return state.paused
            }
            guard let pause else { return }
            if pause { flowControl.pause?() } else { flowControl.resume?() }
        }
    }
}

/// The body stream type of ``HTTPTransport``.
typealias HTTPByteStream = HTTPResponseBody
