extension ChappieEmulator {
    /// A streaming connection that the client closed, as the emulator saw it: an SSE response
    /// left while its body was still being sent (or held open by ``ScriptedReply/stall``), or a
    /// Responses WebSocket the client closed. Await them with ``ChappieEmulator/nextClosedStream()``
    /// to check that cancelling a consumer closes the connection.
    public struct ClosedStream: Sendable, Equatable {
        /// The transport of the closed stream.
        public enum Transport: Sendable, Equatable {
            /// A chunked `text/event-stream` response to `POST /backend-api/codex/responses`.
            case httpSSE
            /// A WebSocket on `GET /backend-api/codex/responses`.
            case webSocket
        }

        /// How the stream was carried.
        public var transport: Transport
        /// The request path, e.g. `/backend-api/codex/responses`.
        public var path: String
        /// What had been fully written before the client left: body chunks for SSE (one per
        /// event, or one per cut piece of a ``ScriptedReply/replaySSE(_:chunkOffsets:chunkInterval:)``),
        /// text frames for a WebSocket (including `codex.rate_limits`), counted over the connection.
        public var messagesSent: Int
        /// Whether a response was still being streamed (or stalled) when the client left. Always
        /// true for SSE; false for a WebSocket closed between responses.
        public var duringResponse: Bool
        /// The status code of the client's WebSocket close frame (e.g. 1000, 1001); nil for SSE
        /// and for a WebSocket that closed without a close frame or code.
        public var closeCode: UInt16?

        /// Creates a record (the emulator makes these; public for comparisons in tests).
        public init(transport: Transport, path: String, messagesSent: Int, duringResponse: Bool, closeCode: UInt16? = nil) {
            self.transport = transport
            self.path = path
            self.messagesSent = messagesSent
            self.duringResponse = duringResponse
            self.closeCode = closeCode
        }
    }
}

/// Every client-closed stream in order, handed out once each to ``ChappieEmulator/nextClosedStream()``.
actor ClosedStreamLog {
    private var closed = [ChappieEmulator.ClosedStream]()
    private var delivered = 0
    private var waiters = [CheckedContinuation<ChappieEmulator.ClosedStream?, Never>]()
    private var finished = false

    /// Appends `stream` and wakes the oldest waiter.
    func record(_ stream: ChappieEmulator.ClosedStream) {
        closed.append(stream)
        if !waiters.isEmpty {
            delivered += 1
            waiters.removeFirst().resume(returning: stream)
        }
    }

    /// The ``HTTPResponse/onClientClose`` handler of an SSE response on `path`: records the
    /// client's close, with the chunks sent before it, as an HTTP/SSE stream closed during its
    /// response.
    nonisolated func sseCloseRecorder(path: String) -> @Sendable (_ chunksSent: Int) -> Void {
        { sent in
            BlockingBridge.run { await self.record(.init(transport: .httpSSE, path: path, messagesSent: sent, duringResponse: true)) }
        }
    }

    /// The oldest record not yet handed out, waiting for one if needed; nil after ``finish()``.
    func next() async -> ChappieEmulator.ClosedStream? {
        if delivered < closed.count {
            delivered += 1
            return closed[delivered - 1]
        }
        if finished { return nil }
        return await withCheckedContinuation { waiters.append($0) }
    }

    /// Number of records so far.
    var count: Int { closed.count }

    /// Releases every waiter with nil (on shutdown).
    func finish() {
        finished = true
        let pending = waiters
        waiters.removeAll()
        for waiter in pending { waiter.resume(returning: nil) }
    }
}
