/// What a typed stream delivers, in order: snapshots of the value as it is generated, the other
/// events of the turn, then the decoded value.
public enum ChappieGenerationEvent<Value: ChappieGenerable>: Sendable {
    /// The value so far, after more of the reply arrived.
    case partial(ChappiePartialGeneration)
    /// Another event of the turn (usage, reasoning summary, tool calls); never a text delta.
    case event(ChappieStreamEvent)
    /// The decoded value and the response it came in; the last event.
    case completed(Value, ChappieResponse)
}

/// The events of ``ChappieClient/stream(_:generating:)-(String,_)``: ``ChappieGenerationEvent/partial(_:)``
/// snapshots while the JSON streams in, then ``ChappieGenerationEvent/completed(_:_:)``.
///
/// The reply is parsed once, incrementally, as it arrives (each byte read once; a snapshot costs
/// the nesting depth), so a long reply costs time in proportion to its length. A consumer that
/// falls behind gets fewer, larger steps. Iteration throws what the untyped stream throws, plus
/// ``ChappieGenerationError`` when the schema is unusable or refused, or the reply does not
/// decode. Ending iteration early cancels the request.
public struct ChappieGenerationStream<Value: ChappieGenerable>: AsyncSequence, Sendable {
    /// One event.
    public typealias Element = ChappieGenerationEvent<Value>

    private let events: AsyncThrowingStream<ChappieStreamEvent, any Error>?
    private let format: GenerationFormat<Value>?
    private let failure: (any Error & Sendable)?

    init(events: AsyncThrowingStream<ChappieStreamEvent, any Error>, format: GenerationFormat<Value>) {
        self.events = events
        self.format = format
        failure = nil
    }

    init(failure: any Error) {
        events = nil
        format = nil
        self.failure = failure as? ChappieGenerationError ?? ChappieGenerationError.invalidSchema("\(failure)")
    }

    /// Starts reading the stream.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(events: events?.makeAsyncIterator(), format: format, failure: failure)
    }

    /// Reads the stream; parsing happens in the reading task.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var events: AsyncThrowingStream<ChappieStreamEvent, any Error>.AsyncIterator?
        private let format: GenerationFormat<Value>?
        private var failure: (any Error & Sendable)?
        private var parser = PartialJSONParser()
        private var finished = false

        init(events: AsyncThrowingStream<ChappieStreamEvent, any Error>.AsyncIterator?, format: GenerationFormat<Value>?,
             failure: (any Error & Sendable)?) {
            self.events = events
            self.format = format
            self.failure = failure
        }

        /// The next event, nil after the value. Throws as ``ChappieGenerationStream`` says.
        public mutating func next() async throws -> Element? {
            if let failure {
                self.failure = nil
                finished = true
                throw failure
            }
            guard !finished, let format else { return nil }
            do {
                while let event = try await events?.next() {
                    switch event {
                    case .textDelta(let text):
                        parser.feed(text)
                        if case .invalid = parser.status { continue }
                        return .partial(format.present(parser.snapshot()))
                    case .completed(let response):
                        finished = true
                        return .completed(try format.decode(response.outputText), response)
                    case .toolCallRequested:
                        // A reply before a tool call is not the value: start over after it.
                        parser = PartialJSONParser()
                        return .event(event)
                    default:
                        return .event(event)
                    }
                }
            } catch {
                finished = true
                throw GenerationFormat<Value>.mapRefusal(error)
            }
            finished = true
            return nil
        }
    }
}
