@testable import ChappieCore
@testable import ChappieTransport
import Foundation
import Testing

/// Counts the flow-control calls a body makes.
private final class FlowRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var calls: [String] = []
    var recorded: [String] { lock.withLock { calls } }
    func note(_ call: String) { lock.withLock { calls.append(call) } }

    func flowControl(highWater: Int = 100, lowWater: Int = 40, maximumBodyBytes: Int = .max,
                     whilePausing: (@Sendable () -> Void)? = nil) -> HTTPResponseBody.FlowControl {
        let note: @Sendable (String) -> Void = { self.note($0) }
        return HTTPResponseBody.FlowControl(highWater: highWater, lowWater: lowWater, maximumBodyBytes: maximumBodyBytes,
                                            pause: { whilePausing?(); note("pause") }, resume: { note("resume") }, stop: { note("stop") })
    }
}

/// Hands the body to the flow-control closures made before it.
private final class BodyBox: @unchecked Sendable {
    var body: HTTPResponseBody?
}

@Suite("Response body buffer")
struct HTTPResponseBodyTests {
    @Test("a slow consumer pauses the download above the high-water mark and resumes it at the low-water mark")
    func watermarks() async throws {
        let recorder = FlowRecorder()
        let (body, producer) = HTTPResponseBody.makeStream(flowControl: recorder.flowControl())
        for _ in 0..<6 { producer.yield(Data(repeating: 1, count: 30)) }  // 180 unread bytes: past 100
        #expect(recorder.recorded == ["pause"])
        var iterator = body.makeAsyncIterator()
        for _ in 0..<4 { _ = try await iterator.next() }  // 60 unread: not yet at 40
        #expect(recorder.recorded == ["pause"])
        _ = try await iterator.next()  // 30 unread
        #expect(recorder.recorded == ["pause", "resume"])
        producer.finish()
        #expect(try await iterator.next()?.count == 30)
        #expect(try await iterator.next() == nil)
    }

    @Test("a resume asked for while the pause call is still running comes after it: the download never stays paused")
    func resumeDuringPause() async throws {
        let recorder = FlowRecorder()
        let drained = DispatchSemaphore(value: 0)
        let box = BodyBox()
        // The pause call is slow (a busy loop thread): while it runs, the consumer reads the buffer
        // empty, which asks for a resume before the pause has taken effect.
        let flowControl = recorder.flowControl(whilePausing: {
            let body = box.body!
            Task {
                var iterator = body.makeAsyncIterator()
                for _ in 0..<4 { _ = try await iterator.next() }  // all that was yielded so far
                drained.signal()
            }
            drained.wait()
        })
        let (body, producer) = HTTPResponseBody.makeStream(flowControl: flowControl)
        box.body = body
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {  // the producer: a transport's own thread
                for _ in 0..<6 { producer.yield(Data(repeating: 1, count: 30)) }  // the 4th passes 100 bytes
                done.resume()
            }
        }
        #expect(recorder.recorded == ["pause", "resume"])
    }

    @Test("a body longer than its cap fails with responseTooLarge")
    func totalCap() async throws {
        let recorder = FlowRecorder()
        let (body, producer) = HTTPResponseBody.makeStream(flowControl: recorder.flowControl(maximumBodyBytes: 50))
        producer.yield(Data(repeating: 1, count: 30))
        producer.yield(Data(repeating: 1, count: 30))
        var iterator = body.makeAsyncIterator()
        await #expect(throws: TransportError.responseTooLarge(50)) { _ = try await iterator.next() }
        #expect(recorder.recorded == ["stop"])
    }

    @Test("cancelling the body stops the request; cancelling the reader ends its wait")
    func cancellation() async throws {
        let recorder = FlowRecorder()
        let (body, _) = HTTPResponseBody.makeStream(flowControl: recorder.flowControl())
        let reader = Task {
            var iterator = body.makeAsyncIterator()
            return try await iterator.next()
        }
        reader.cancel()
        await #expect(throws: CancellationError.self) { _ = try await reader.value }
        body.cancel()
        #expect(recorder.recorded == ["stop"])
    }
}

@Suite("Event channel")
struct EventChannelTests {
    @Test("a consumer that keeps up gets every delta as it was produced")
    func keepsUp() async throws {
        let stream = EventChannel<ChappieStreamEvent>.stream { channel in
            for index in 0..<10 { channel.send(.textDelta("\(index) ")) }
        }
        var deltas: [String] = []
        for try await event in stream { if case .textDelta(let text) = event { deltas.append(text) } }
        #expect(deltas == (0..<10).map { "\($0) " })
    }

    @Test("a stalled consumer costs the unread text, not one event per delta: deltas merge, other events keep their place")
    func stalledConsumer() async throws {
        let produced = AsyncStream<Void>.makeStream()
        let stream = EventChannel<ChappieStreamEvent>.stream { channel in
            for index in 0..<10_000 { channel.send(.textDelta("\(index % 10)")) }
            channel.send(.reasoningSummaryDelta("r"))
            for _ in 0..<10 { channel.send(.textDelta("z")) }
            produced.continuation.finish()
        }
        for await _ in produced.stream {}  // the producer is done before the consumer reads anything
        var events: [ChappieStreamEvent] = []
        for try await event in stream { events.append(event) }
        #expect(events.count <= EventChannel<ChappieStreamEvent>.mergeThreshold + 3)
        let text = events.compactMap { if case .textDelta(let text) = $0 { text } else { nil } }.joined()
        #expect(text == String((0..<10_000).map { Character("\($0 % 10)") }) + String(repeating: "z", count: 10))
        let reasoningIndex = try #require(events.firstIndex(of: .reasoningSummaryDelta("r")))
        #expect(events[(reasoningIndex + 1)...].allSatisfy { $0 == .textDelta(String(repeating: "z", count: 10)) || $0 == .textDelta("z") })
    }

    @Test("dropping the stream cancels the producer")
    func droppedStream() async throws {
        let cancelled = AsyncStream<Void>.makeStream()
        var stream: AsyncThrowingStream<ChappieStreamEvent, any Error>? = EventChannel<ChappieStreamEvent>.stream { channel in
            channel.send(.textDelta("first"))
            await withTaskCancellationHandler {
                await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
            } onCancel: {
                cancelled.continuation.finish()
            }
        }
        var iterator = stream?.makeAsyncIterator()
        #expect(try await iterator?.next() == .textDelta("first"))
        iterator = nil
        stream = nil
        for await _ in cancelled.stream {}
    }
}
