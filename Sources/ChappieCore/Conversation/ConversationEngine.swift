import ChappieTransport
import Foundation

/// The one owner of a conversation (DESIGN §11): its context, the gate that runs turns and context
/// changes one at a time in call order, the rounds of a turn and its tool loop, the race with a
/// sign-out, the re-entry rule, compaction (`ConversationEngine+Compaction.swift`) and the
/// client's lifetime. ``ChappieClient`` is a façade over it, and ``ChappieRuntime`` runs its turns
/// through it and stores the ``ConversationTurnRecord`` each turn ends in.
///
/// Every turn ends in one record that the context already reflects when the turn's call returns
/// (or throws): the input, the transcript items added, the tool calls and approvals, the shown
/// text, the response and how the turn failed.
actor ConversationEngine {
    let configuration: ChappieConfiguration
    var harness: ChappieHarness { configuration.harness }
    let pipeline: RequestPipeline
    /// The account's model catalog (an actor of its own; the engine asks it before a turn).
    let catalog: ModelCatalog
    let time: ChappieTimeSource

    /// Host tools by name.
    private var tools: [String: ChappieHostTool]
    private var approvalHandler: ChappieToolApprovalHandler?
    private let webSockets: any WebSocketConnector
    private let streaming = StreamingTransportState()
    private let socket = ResponsesSocket()
    private let compressesRequests: Bool
    /// The sticky-routing token of the running turn; a new one per turn.
    private var turnState = TurnState()

    /// The conversation. Every change goes through ``commit(_:)`` or ``change(_:)``, which count
    /// ``revision``.
    private(set) var state: ChappieClientContext
    /// Counts the changes of ``state``: a turn record carries the revision it started from and
    /// the one it produced, so a reader that stored the first knows the record's added items are
    /// all that changed.
    private(set) var revision = 0

    /// One turn or context change at a time, in call order.
    private let gate = FIFOGate()
    /// How many turns and context changes wait for the running one (for tests).
    nonisolated var queuedCount: Int { gate.queuedCount }
    /// Set, synchronously, when the running turn's task is cancelled (its stream's consumer left
    /// or its caller was cancelled), until that turn has ended: ``context()`` then waits for the
    /// turn to record what it showed.
    private let runningTurnCancelled = LockedBox(false)
    /// Context changes asked for from inside the running turn (a tool handler): applied after it.
    private var deferredChanges: [@Sendable (inout ChappieClientContext, Date) -> Void] = []
    /// The engine whose turn the current task runs in (tool handlers run inside their turn).
    private static let runningTurnOf = TaskLocal<ObjectIdentifier?>(wrappedValue: nil)
    /// The engine whose gate the current task holds for an ``exclusively(_:)`` block: its
    /// turns and changes run at once instead of queueing behind the block.
    private static let holderOf = TaskLocal<ObjectIdentifier?>(wrappedValue: nil)

    /// The models for which the configuration's web search was left out of a turn, and logged once.
    private var warnedOfSkippedSearch: Set<String> = []
    /// Whether the first turn warms the WebSocket first, until a warm-up or a turn has run.
    private var prewarmPending: Bool
    /// The running turn's work, cancelled by ``shutdown()``.
    private var runningTurn: Task<ChappieResponse, any Error>?
    /// Set by the first ``shutdown()``: its work, awaited by every later call.
    private var shutdownTask: Task<Void, Never>?
    /// The threads the client's transports started, which ``shutdown()`` waits for.
    let threads: ThreadGroup

    init(configuration: ChappieConfiguration, tools: [ChappieHostTool], toolApprovalHandler: ChappieToolApprovalHandler?,
         transport: any HTTPTransport, webSockets: any WebSocketConnector, timeSource: ChappieTimeSource, compressesRequests: Bool,
         prewarmsWebSocket: Bool, threads: ThreadGroup) {
        self.configuration = configuration
        self.compressesRequests = compressesRequests
        prewarmPending = prewarmsWebSocket
        self.threads = threads
        self.webSockets = webSockets
        self.tools = Dictionary(tools.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        approvalHandler = toolApprovalHandler
        time = timeSource
        pipeline = RequestPipeline(configuration: configuration, transport: transport, credentials: CredentialManager.shared(for: configuration),
                                   time: timeSource)
        catalog = ModelCatalog(pipeline: pipeline, endpoints: configuration.endpoints, time: timeSource)
        let now = timeSource.now()
        state = ChappieClientContext(sessionID: UUID().uuidString.lowercased(), threadID: UUID().uuidString.lowercased(),
                                     model: configuration.model, transcript: [], compactedSummary: nil, createdAt: now, updatedAt: now)
    }

    // MARK: Turns

    /// Where a turn's events go: `emit` queues one, `deliver` waits until the consumer dealt with it.
    struct TurnEvents: Sendable {
        let emit: @Sendable (ChappieStreamEvent) -> Void
        let deliver: (@Sendable (ChappieStreamEvent) async -> Void)?

        /// Events that go nowhere.
        static let none = TurnEvents(emit: { _ in }, deliver: nil)
    }

    /// What a turn sends: new messages (after the conversation, or replacing it), and its options.
    struct TurnInput: Sendable {
        var messages: [ChappieInputMessage]
        var replacing = false
        var model: String?
        var options: ChappieMessageOptions
        /// The request's `text.format` (typed output).
        var textFormat: ChappieJSONValue?

        /// One message after the conversation, with its own options.
        static func message(_ message: ChappieInputMessage, textFormat: ChappieJSONValue? = nil) -> TurnInput {
            TurnInput(messages: [message], options: message.options, textFormat: textFormat)
        }

        /// An explicit transcript that replaces the conversation.
        static func request(_ request: ChappieResponseRequest) -> TurnInput {
            TurnInput(messages: request.messages, replacing: true, model: request.model, options: request.options)
        }
    }

    /// Runs one turn; returns the response. Throws ``ChappieClientError``, ``ChappieInputError``
    /// or `CancellationError`.
    func runTurn(_ input: TurnInput, events: TurnEvents) async throws -> ChappieResponse {
        let record = try await recordedTurn(input, events: events)
        if let failure = record.failure { throw failure }
        guard let response = record.response else { throw ChappieClientError.streamEndedBeforeCompletion }
        return response
    }

    /// Runs one turn and returns its record, which ``context()`` reflects already; how the turn
    /// failed is in the record (a client shut down before the turn started too). Throws only
    /// when the turn could not start: ``ChappieClientError/reentrantTurn`` from the engine's own
    /// tool handler, or `CancellationError` while it waited.
    func recordedTurn(_ input: TurnInput, events: TurnEvents) async throws -> ConversationTurnRecord {
        try await holdingGate(cancellable: true, reentry: .refuse) { await recordedTurnHoldingGate(input, events: events) }
    }

    /// ``recordedTurn(_:events:)`` once the gate is held.
    private func recordedTurnHoldingGate(_ input: TurnInput, events: TurnEvents) async -> ConversationTurnRecord {
        var record = ConversationTurnRecord(input: input.messages, baseRevision: revision, context: state)
        turnState = TurnState()
        if shutdownTask == nil { await prewarmIfPending() }
        if shutdownTask != nil {
            record.failure = ChappieClientError.clientShutDown
            return record
        }
        let log = TurnLog()
        let cancelled = runningTurnCancelled
        // The turn's work runs in a task of its own, so that ``shutdown()`` can cancel it.
        let (threads, engine) = (threads, ObjectIdentifier(self))
        let emit = events.emit
        let loggingEmit: @Sendable (ChappieStreamEvent) -> Void = { event in
            log.note(event)
            emit(event)
        }
        var loggingDeliver: (@Sendable (ChappieStreamEvent) async -> Void)?
        if let deliver = events.deliver {
            loggingDeliver = { event in
                log.note(event)
                await deliver(event)
            }
        }
        let logging = TurnEvents(emit: loggingEmit, deliver: loggingDeliver)
        let turn = Task {
            try await ThreadGroup.current.withValue(threads) {
                try await Self.holderOf.withValue(nil) {
                    try await Self.runningTurnOf.withValue(engine) {
                        try await runRounds(input, events: logging, log: log)
                    }
                }
            }
        }
        runningTurn = turn
        defer { runningTurn = nil }
        do {
            record.response = try await withTaskCancellationHandler {
                try await turn.value
            } onCancel: {
                cancelled.withLock { $0 = true }
                turn.cancel()
            }
        } catch is CancellationError where shutdownTask != nil {
            record.failure = ChappieClientError.clientShutDown
        } catch {
            record.failure = error
        }
        applyDeferredChanges()
        log.fill(&record)
        record.context = state
        record.revision = revision
        record.appendedItems = log.appendedItems(from: record.baseRevision, to: revision)
        return record
    }

    /// The rounds of one turn: a request, then the host tools it calls, until a reply without
    /// tool calls. The transcript becomes the conversation's when the turn completes; when it
    /// fails or is cancelled after text was shown, the turn so far and the shown text (an
    /// assistant message marked ``ChappieInputMessage/isPartial``) are kept too.
    private func runRounds(_ input: TurnInput, events: TurnEvents, log: TurnLog) async throws -> ChappieResponse {
        let base = input.replacing ? [] : state.transcript
        var transcript = base + input.messages.map(ChappieTranscriptItem.message)
        if input.replacing { log.noteReplaced() }
        try Task.checkCancellation()
        let executor = ToolExecutor(tools: tools, declaredNames: Set(harness.tools.map(\.name)), approvalHandler: approvalHandler,
                                    stopsOnDenial: configuration.stopsOnToolDenial, time: time)
        let slug = input.model ?? state.model
        if let effort = input.options.effectiveEffort, let entry = await catalog.cachedEntry(for: slug),
           !entry.supportedReasoningLevels.isEmpty, !entry.supportedReasoningLevels.contains(effort) {
            throw ChappieClientError.invalidRequest("\(slug) does not support reasoning effort \(effort)")
        }
        let webSearch = try await checkInput(input.messages, options: input.options, model: slug)
        var rounds = 0
        var repaired = false
        /// Makes the turn's transcript the conversation's, noting what it added.
        func commitTurn() {
            log.noteCommitted(Array(transcript[base.count...]))
            commit(transcript)
        }
        while true {
            let body = ResponsesRequestBody(model: slug, instructions: harness.requestInstructions,
                                            input: requestPrefix + ChappieTranscriptItem.replayInput(transcript), tools: declaredTools,
                                            reasoningEffort: input.options.effectiveEffort, promptCacheKey: state.threadID,
                                            textFormat: input.textFormat, reasoningSummary: input.options.reasoningSummary?.rawValue,
                                            verbosity: input.options.verbosity?.rawValue, strictToolNames: strictToolNames,
                                            webSearch: webSearch)
            let (json, sessionID, runner) = (body.json, state.threadID, runner)
            let response: ChappieResponse
            let head: HTTPResponseHead
            do {
                (response, head) = try await endingOnSignOut {
                    try await runner.runReportingHead(body: json, sessionID: sessionID, emit: events.emit)
                }
            } catch let interruption as TurnInterruption {
                log.noteShown(interruption.shownText)
                if !interruption.shownText.isEmpty {
                    transcript.append(.message(ChappieInputMessage(role: .assistant, text: interruption.shownText, isPartial: true)))
                    commitTurn()
                }
                throw interruption.error
            } catch ChappieClientError.unreadableEncryptedContent(let message) where !repaired {
                // The server's key for opaque items changed: drop them (the messages stay) and
                // send the request again in full, once; the conversation is repaired too, so no
                // later turn sends them again.
                guard let (kept, repair) = ChappieContextRepair.removingOpaqueItems(from: transcript) else {
                    throw ChappieClientError.unreadableEncryptedContent(message)
                }
                repaired = true
                transcript = kept
                if !input.replacing, let (conversation, _) = ChappieContextRepair.removingOpaqueItems(from: state.transcript) {
                    log.noteReplaced()
                    commit(conversation)
                }
                pipeline.logger(.warning, "responses.context_repaired",
                                ["reasoning": "\(repair.droppedReasoningItems)", "compaction": "\(repair.droppedCompactionItems)"])
                events.emit(.contextRepaired(repair))
                continue
            }
            await catalog.noteModelsETag(head.header("x-models-etag"))
            log.noteShown(response.outputText)
            transcript += response.items.compactMap(ChappieTranscriptItem.fromOutputItem)
            let calls = response.items.compactMap { $0["type"] == "function_call" ? ChappieFunctionCall(outputItem: $0) : nil }
            guard !calls.isEmpty else {
                commitTurn()
                return response
            }
            rounds += 1
            if rounds > configuration.maximumToolRounds { throw ChappieClientError.toolLoopLimitExceeded(configuration.maximumToolRounds) }
            let results = try await executor.execute(calls, emit: events.emit, deliver: events.deliver)
            transcript += results.map { .functionCallOutput(callID: $0.call.callID, output: $0.output) }
        }
    }

    /// Checks a turn's new `messages` before anything is sent, and returns whether the turn uses
    /// web search. Attachments must be images the backend takes (``ChappieAttachment``) for a
    /// model whose catalog entry lists `image` input; web search asked for in `options` needs a
    /// model that supports the search tool, and the client's ``ChappieConfiguration/webSearch``
    /// is used only where the model does. The catalog is fetched when not cached; a catalog that
    /// cannot be fetched, or that does not list the model, leaves the decision to the server.
    /// Throws ``ChappieInputError``.
    private func checkInput(_ messages: [ChappieInputMessage], options: ChappieMessageOptions, model slug: String) async throws -> Bool {
        if let message = messages.first(where: { $0.role != .user && !$0.attachments.isEmpty }) {
            throw ChappieInputError.attachmentsOutsideUserMessage(role: message.role.rawValue)
        }
        let attachments = messages.flatMap(\.attachments)
        let wantsSearch = options.webSearch ?? configuration.webSearch
        guard !attachments.isEmpty || wantsSearch else { return false }
        for attachment in attachments { try attachment.validate() }
        let imageBytes = attachments.reduce(0) { $0 + ($1.data?.count ?? 0) }
        if imageBytes > ChappieAttachment.maximumImageBytesPerRequest {
            throw ChappieInputError.tooManyImageBytes(byteCount: imageBytes, limit: ChappieAttachment.maximumImageBytesPerRequest)
        }
        let entry = await catalog.entry(for: slug, sessionID: state.threadID)
        if !attachments.isEmpty, let entry, !entry.inputModalities.contains("image") {
            throw ChappieInputError.imageInputUnsupported(model: slug)
        }
        guard wantsSearch else { return false }
        guard let entry, !entry.supportsSearchTool else { return true }
        if options.webSearch == true { throw ChappieInputError.webSearchUnsupported(model: slug) }
        if !warnedOfSkippedSearch.contains(slug) {
            warnedOfSkippedSearch.insert(slug)
            pipeline.logger(.warning, "web_search.skipped", ["model": slug, "reason": "the model's catalog entry does not offer web search"])
        }
        return false
    }

    /// Makes `transcript` the conversation's.
    func commit(_ transcript: [ChappieTranscriptItem]) {
        change { state, now in
            state.transcript = transcript
            state.updatedAt = now
        }
    }

    /// Changes the conversation now (the caller holds the gate), counting the revision.
    func change(_ body: (inout ChappieClientContext, Date) -> Void) {
        body(&state, time.now())
        revision += 1
    }

    /// Runs one request, stopping it when the account signs out meanwhile (in this process, by any
    /// session or client of the same slot): the request's connection is closed and the turn throws
    /// ``ChappieClientError/missingCredential``, so no reply keeps arriving for a signed-out user.
    private func endingOnSignOut<Result: Sendable>(_ request: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let credentials = runner.credentials
        let mark = await credentials.signOutMark
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await request() }
            group.addTask {
                await credentials.waitForSignOut(after: mark)
                return nil
            }
            defer { group.cancelAll() }
            if let first = try await group.next(), let result = first { return result }
            // The sign-out watcher ended first: the slot was signed out, or this task was
            // cancelled. A cancelled request still reports how it ended (with the text it showed).
            group.cancelAll()
            guard Task.isCancelled else { throw ChappieClientError.missingCredential }
            while let next = try await group.next() {
                if let result = next { return result }
            }
            throw CancellationError()
        }
    }

    /// The items every request starts with: the harness context and the compaction summary.
    var requestPrefix: [ChappieJSONValue] {
        var prefix: [ChappieJSONValue] = []
        if let context = harness.contextMessage { prefix.append(ResponsesRequestBody.item(for: context)) }
        if let summary = state.compactedSummary { prefix.append(ResponsesRequestBody.item(for: .system(summary))) }
        return prefix
    }

    /// The harness tools plus every host tool the harness does not declare (first name wins).
    var declaredTools: [ChappieHarnessTool] {
        var seen = Set<String>()
        return (harness.tools + tools.values.sorted { $0.name < $1.name }.map(\.declaration)).filter { seen.insert($0.name).inserted }
    }

    /// The host tools declared with `"strict": true` (typed tools).
    private var strictToolNames: Set<String> {
        Set(tools.values.filter(\.strict).map(\.name))
    }

    /// Registers a host tool (replacing one with the same name) for later turns.
    func register(_ tool: ChappieHostTool) {
        tools[tool.name] = tool
    }

    /// Sets the handler that decides on `.ask` tool calls; without one they are denied.
    func setToolApprovalHandler(_ handler: ChappieToolApprovalHandler?) {
        approvalHandler = handler
    }

    var runner: ResponseTurnRunner {
        ResponseTurnRunner(pipeline: pipeline, transportPolicy: configuration.streamingTransportPolicy, streaming: streaming,
                           webSockets: webSockets, socket: socket, turnState: turnState, compressesRequests: compressesRequests)
    }

    // MARK: The gate

    /// How a call made from inside this engine's own running turn (a tool handler) is handled.
    enum Reentry {
        /// It throws ``ChappieClientError/reentrantTurn`` at once (a turn, a compaction).
        case refuse
        /// It is not run; the caller handles that case before (context changes defer instead).
        case ignore
    }

    /// Runs `body` holding the gate: after the turns and changes called earlier, before the later
    /// ones. Inside an ``exclusively(_:)`` block it runs at once. `cancellable`: a cancelled
    /// caller stops waiting (`CancellationError`); otherwise it waits regardless. Throws
    /// ``ChappieClientError/reentrantTurn`` for a call from this engine's own turn when
    /// `reentry` refuses it.
    private func holdingGate<Result: Sendable>(cancellable: Bool, reentry: Reentry,
                                               _ body: () async throws -> Result) async throws -> Result {
        let me = ObjectIdentifier(self)
        if reentry == .refuse, Self.runningTurnOf.get() == me { throw ChappieClientError.reentrantTurn }
        if Self.holderOf.get() == me { return try await body() }
        if cancellable { try await gate.enter() } else { await gate.enterIgnoringCancellation() }
        defer {
            runningTurnCancelled.withLock { $0 = false }
            gate.leave()
        }
        return try await body()
    }

    /// Runs `body` holding the gate, so no turn or context change of this engine runs meanwhile;
    /// the engine's calls that `body` makes run at once. Throws what `body` throws,
    /// ``ChappieClientError/reentrantTurn`` from the engine's own tool handler, or, when
    /// `cancellable`, `CancellationError` when the caller is cancelled while it waits.
    func exclusively<Result: Sendable>(cancellable: Bool, _ body: @Sendable () async throws -> Result) async throws -> Result {
        try await holdingGate(cancellable: cancellable, reentry: .refuse) {
            try await Self.holderOf.withValue(ObjectIdentifier(self)) { try await body() }
        }
    }

    /// Applies the context changes asked for during the turn.
    private func applyDeferredChanges() {
        guard !deferredChanges.isEmpty else { return }
        let changes = deferredChanges
        deferredChanges.removeAll()
        change { state, now in
            for change in changes { change(&state, now) }
        }
    }

    /// Changes the context once no turn runs (in call order with turns), and returns it with its
    /// revision. Called from inside this engine's own turn (a tool handler), the change is queued
    /// for the end of that turn instead of waiting for it, and the context it will produce is
    /// returned.
    func changeContext(_ body: @escaping @Sendable (inout ChappieClientContext, Date) -> Void) async
        -> (context: ChappieClientContext, revision: Int) {
        if Self.runningTurnOf.get() == ObjectIdentifier(self) {
            deferredChanges.append(body)
            var projected = state
            body(&projected, time.now())
            return (projected, revision + 1)
        }
        return (try? await holdingGate(cancellable: false, reentry: .ignore) {
            change(body)
            return (state, revision)
        }) ?? (state, revision)
    }

    /// A snapshot of the conversation. Right after a turn was cancelled, it first waits for that
    /// turn to end, so the snapshot holds what the turn showed.
    func context() async -> ChappieClientContext {
        await contextWithRevision().context
    }

    /// ``context()`` with its revision.
    func contextWithRevision() async -> (context: ChappieClientContext, revision: Int) {
        let me = ObjectIdentifier(self)
        if runningTurnCancelled.withLock({ $0 }), Self.runningTurnOf.get() != me, Self.holderOf.get() != me {
            _ = try? await holdingGate(cancellable: false, reentry: .ignore) {}
        }
        return (state, revision)
    }

    /// Runs a compaction holding the gate (refused from the engine's own turn).
    func compacting<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        try await holdingGate(cancellable: true, reentry: .refuse) {
            try checkNotShutDown()
            return try await body()
        }
    }

    // MARK: Lifetime

    /// Opens and warms the WebSocket (the request the next turn would make, with no input), once
    /// no turn runs. Nothing when no one is signed in, when the policy does not prefer WebSocket,
    /// when a socket is kept already, after ``shutdown()``, from the engine's own tool handler or
    /// from a cancelled task. Best effort: a failure is logged.
    func prewarm() async {
        guard configuration.streamingTransportPolicy.prefersWebSocket else { return }
        _ = try? await holdingGate(cancellable: true, reentry: .refuse) {
            try checkNotShutDown()
            prewarmPending = false
            await warmWebSocket()
        }
    }

    /// The warm-up the policy asks for before the first turn, once; the caller holds the gate.
    private func prewarmIfPending() async {
        guard prewarmPending else { return }
        prewarmPending = false
        await warmWebSocket()
    }

    /// ``prewarm()`` once the gate is held.
    private func warmWebSocket() async {
        guard await !socket.holdsSocket, (try? await pipeline.credentials.authorization(pipeline.credentialContext)) != nil else { return }
        // The tools the first turn will offer, web search included, so that it goes out on top
        // of the warm-up.
        let webSearch = (try? await checkInput([], options: ChappieMessageOptions(), model: state.model)) ?? false
        let body = ResponsesRequestBody(model: state.model, instructions: harness.requestInstructions, input: requestPrefix,
                                        tools: declaredTools, reasoningEffort: nil, promptCacheKey: state.threadID,
                                        strictToolNames: strictToolNames, webSearch: webSearch)
        let (runner, sessionID) = (runner, state.threadID)
        await ThreadGroup.current.withValue(threads) { await runner.prewarm(body: body.json, sessionID: sessionID) }
    }

    /// Shuts down for good (see ``ChappieClient/shutdown()``): later calls throw
    /// ``ChappieClientError/clientShutDown``, the running turn is cancelled and waited for, the
    /// socket is closed and the transport and the client's threads stopped. From the engine's
    /// own tool handler it cancels that turn and returns at once.
    func shutdown() async {
        let work = startShutdown()
        if Self.runningTurnOf.get() == ObjectIdentifier(self) { return }
        await work.value
    }

    /// The shutdown's work, started by the first call.
    private func startShutdown() -> Task<Void, Never> {
        if let shutdownTask { return shutdownTask }
        if let runningTurn {
            runningTurnCancelled.withLock { $0 = true }
            runningTurn.cancel()
        }
        // Detached: it must not inherit a tool handler's turn (or its cancellation).
        let work = Task.detached { [self] in await finishShutdown() }
        shutdownTask = work
        return work
    }

    /// Waits for the running and queued turns (which throw at once now), then closes the socket
    /// and stops the transport and every thread of the client.
    private func finishShutdown() async {
        _ = try? await holdingGate(cancellable: false, reentry: .ignore) {
            await socket.close()
            await pipeline.transport.shutdown()
            await threads.join()
        }
    }

    /// Throws ``ChappieClientError/clientShutDown`` once ``shutdown()`` was called.
    func checkNotShutDown() throws {
        if shutdownTask != nil { throw ChappieClientError.clientShutDown }
    }

    /// The conversation's thread id for a request outside a turn (the catalog, usage), after
    /// checking the engine is not shut down. Throws ``ChappieClientError/clientShutDown``.
    func requestSessionID() throws -> String {
        try checkNotShutDown()
        return state.threadID
    }
}
