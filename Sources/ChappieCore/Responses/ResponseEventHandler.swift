import ChappieTransport

/// Turns decoded Responses events into consumer events and the final response, the same way for
/// SSE and WebSocket: deltas pass through the ``ReplayGuard``s, terminal events end the attempt.
struct ResponseEventHandler: Sendable {
    /// Whose error codes the failure events carry (the public API maps its own, SIWC.md §6.3).
    var backend = InferenceBackend.codex
    /// The request id of the running attempt's answer (`x-request-id`), kept in its errors.
    var requestID: String?
    private var accumulator = ResponseAccumulator()
    private var text = ReplayGuard()
    private var reasoning = ReplayGuard()
    /// Keep the user's access token out of the text and the reasoning summary shown.
    private var textEchoes = EchoedSecretFilter(secrets: [])
    private var reasoningEchoes = EchoedSecretFilter(secrets: [])
    /// The error of a `response.failed` seen before the stream closed.
    private(set) var pendingFailure: ChappieClientError?

    /// True once text was shown to the consumer for this response (in any attempt).
    var hasShownOutput: Bool { text.hasShown }

    /// The text shown to the consumer so far for this response.
    var shownText: String { textEchoes.shown(String(decoding: text.shown, as: UTF8.self)) }

    /// Redacts `secrets` (the request's access token) wherever the server echoes them: deltas,
    /// the final text, reasoning summary and output items (``EchoedSecretFilter``).
    mutating func guardEchoes(of secrets: [String]) {
        textEchoes = EchoedSecretFilter(secrets: secrets)
        reasoningEchoes = EchoedSecretFilter(secrets: secrets)
    }

    /// Starts a new attempt of the same response: its events are checked against what was shown.
    mutating func beginAttempt() {
        accumulator = ResponseAccumulator()
        text.beginAttempt()
        reasoning.beginAttempt()
        pendingFailure = nil
    }

    /// Handles one event; returns the response on `response.completed`. Throws the typed error of
    /// a failure event, or ``ChappieClientError/streamingTransportReplayDiverged(_:)``.
    mutating func handle(_ event: ResponsesEvent, emit: @Sendable (ChappieStreamEvent) -> Void) throws -> ChappieResponse? {
        switch event {
        case .created(let id, let model):
            accumulator.created(id: id, model: model)
        case .outputTextDelta(let delta, let itemID):
            if let added = accumulator.textDelta(delta, itemID: itemID), let fresh = try text.accept(added) {
                Self.emit(textEchoes.feed(fresh), as: ChappieStreamEvent.textDelta, emit)
            }
        case .reasoningSummaryDelta(let delta):
            if let added = accumulator.reasoningDelta(delta), let fresh = try? reasoning.accept(added) {
                Self.emit(reasoningEchoes.feed(fresh), as: ChappieStreamEvent.reasoningSummaryDelta, emit)
            }
        case .outputItemDone(let item):
            if let call = ChappieWebSearchCall(outputItem: item) { emit(.webSearch(textEchoes.redacted(call))) }
            if let added = accumulator.itemDone(item), let fresh = try text.accept(added) {
                Self.emit(textEchoes.feed(fresh), as: ChappieStreamEvent.textDelta, emit)
            }
        case .webSearchStarted(let call):
            emit(.webSearch(textEchoes.redacted(call)))
        case .completed(let id, let model, let usage):
            // What was held back as a possible start of the token was not one: show it.
            Self.emit(reasoningEchoes.finish(), as: ChappieStreamEvent.reasoningSummaryDelta, emit)
            Self.emit(textEchoes.finish(), as: ChappieStreamEvent.textDelta, emit)
            return textEchoes.redacted(accumulator.response(id: id, model: model, usage: usage))
        case .failed(let error) where backend == .publicAPI:
            throw publicAPIFailure(error, status: nil)
        case .failed(let error):
            let failure = ResponsesErrorMapping.failed(error)
            pendingFailure = failure
            throw failure
        case .incomplete(let reason):
            throw ChappieClientError.responseIncomplete(reason: Redaction.clean(reason, maximumBytes: 200))
        case .error(let status, let error) where backend == .publicAPI:
            throw publicAPIFailure(error, status: status)
        case .error(let status, let error):
            // Classified like an HTTP answer with that status. Before any text was shown, a
            // retryable one (a 429, a 5xx, the WebSocket's connection limit) goes to the pipeline
            // or the coordinator to retry; after, it ends the response.
            guard let status, status >= 400 else { throw ResponsesErrorMapping.failed(error) }
            let failure = BackendFailure.classify(status: status, error: error)
            if hasShownOutput { throw failure.finalError }
            throw failure
        case .rateLimits(let snapshot):
            emit(.usageLimits(snapshot))
        case .ignored, .turnState:
            break
        }
        return nil
    }

    /// Emits `text` as the event `make` builds, unless it is empty (deltas are never empty).
    private static func emit(_ text: String, as make: (String) -> ChappieStreamEvent, _ emit: @Sendable (ChappieStreamEvent) -> Void) {
        if !text.isEmpty { emit(make(text)) }
    }

    /// A failure event of the public API: retried (a ``BackendFailure``) only while nothing was
    /// shown and only for its "unavailable" codes; otherwise the typed error, kept as pending.
    private mutating func publicAPIFailure(_ error: ServerErrorBody, status: Int?) -> any Error {
        let failure = PublicAPIErrorMapping.streamFailure(error, status: status, requestID: requestID, shown: hasShownOutput)
        pendingFailure = (failure as? BackendFailure)?.finalError ?? failure as? ChappieClientError
        return failure
    }
}
