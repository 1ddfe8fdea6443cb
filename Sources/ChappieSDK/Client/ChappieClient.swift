import Foundation

/// Talks to the ChatGPT/Codex backend for the signed-in user: sends messages, streams replies,
/// lists models and reads usage. It keeps the conversation (a private transcript and thread id)
/// for its lifetime, behind the harness: over the WebSocket it keeps open across turns, a turn
/// sends only what is new since the previous response; over HTTP/SSE, the whole transcript.
///
/// Every network call goes through one request pipeline: the credential is refreshed first when
/// needed and once after a 401, a 429 waits per the back-off policy, and 5xx and network failures
/// are retried a bounded number of times while nothing has been shown. Turns reuse the client's
/// connections: its WebSocket, and for HTTP keep-alive connections (`URLSession` on Apple
/// platforms, libcurl on Linux).
///
/// Turns run one at a time in call order. Context changes (``clearContext()``,
/// ``resumeContext(_:)``, ``compactContext(summary:keepingLast:)``, ``selectModel(_:)``) made while a
/// turn runs take effect after it, in call order, and the finishing turn never overwrites them.
///
/// Creating a client sends nothing: its WebSocket opens with the first turn, or earlier with
/// ``prewarm()``. When the app is done with it, ``shutdown()`` ends the running turn, closes the
/// WebSocket and stops the client's network threads; ``with(configuration:tools:toolApprovalHandler:isolation:_:)``
/// scopes a client to a block and always shuts it down.
public actor ChappieClient {
    /// The default model slug, `gpt-5.5`.
    public static let defaultModel = "gpt-5.5"

    /// The configuration this client was built from.
    public nonisolated let configuration: ChappieConfiguration
    /// The harness sent with every request.
    public nonisolated let harness: ChappieHarness

    /// Host tools by name.
    private var tools: [String: ChappieHostTool]
    private var approvalHandler: ChappieToolApprovalHandler?
    private let pipeline: RequestPipeline
    private let webSockets: any WebSocketConnector
    private let streaming = StreamingTransportState()
    private let socket = ResponsesSocket()
    private let compressesRequests: Bool
    /// The sticky-routing token of the running turn; a new one per turn.
    private var turnState = TurnState()
    private let time: ChappieTimeSource
    private var state: ChappieClientContext
    /// The account's model catalog, cached with its ETag.
    private let catalog: ModelCatalog
    /// One turn at a time, in call order (context changes queue here too).
    private let turnGate = FIFOGate()
    /// Set, synchronously, when the running turn's task is cancelled (its stream's consumer left
    /// or its caller was cancelled), until that turn has ended: ``context()`` then waits for the
    /// turn to record what it showed.
    private let runningTurnCancelled = LockedBox(false)
    /// Context changes asked for from inside the running turn (a tool handler): applied after it.
    private var deferredChanges: [@Sendable (inout ChappieClientContext, Date) -> Void] = []

    /// The client whose turn the current task runs in (tool handlers run inside their turn).
    private static let runningTurnOf = TaskLocal<ObjectIdentifier?>(wrappedValue: nil)
    /// Whether the first turn warms the WebSocket first (the policy's ``ChappieStreamingTransportPolicy/prewarmsWebSocket``),
    /// until a warm-up or a turn has run.
    private var prewarmPending: Bool
    /// The running turn's work, cancelled by ``shutdown()``.
    private var runningTurn: Task<ChappieResponse, any Error>?
    /// Set by the first ``shutdown()``: its work, awaited by every later call.
    private var shutdownTask: Task<Void, Never>?
    /// The threads the client's transports started (the libcurl loop, WebSocket I/O threads),
    /// which ``shutdown()`` waits for.
    private let threads: ThreadGroup

    /// Creates a client; prefer
    /// ``Chappie/client(configuration:harness:tools:toolApprovalHandler:rateLimitBackoff:streamingTransportPolicy:)``,
    /// or ``with(configuration:tools:toolApprovalHandler:isolation:_:)`` for a client that lives
    /// for one block.
    ///
    /// Nothing is sent yet. With a streaming policy that prefers WebSocket and prewarms it (the
    /// default), the first turn opens and warms the WebSocket before its request, or
    /// ``prewarm()`` does so earlier. Call ``shutdown()`` when done with the client.
    public init(configuration: ChappieConfiguration = ChappieConfiguration(), tools: [ChappieHostTool] = [],
                toolApprovalHandler: ChappieToolApprovalHandler? = nil, timeSource: ChappieTimeSource = .system) {
        let threads = ThreadGroup()
        let transport = ThreadGroup.current.withValue(threads) { HTTPTransports.platformDefault() }
        self.init(configuration: configuration, tools: tools, toolApprovalHandler: toolApprovalHandler,
                  transport: transport, webSockets: WebSocketConnectors.platformDefault(), timeSource: timeSource,
                  compressesRequests: !LoopbackAddress.isLoopback(host: configuration.endpoints.backend.host),
                  prewarmsWebSocket: configuration.streamingTransportPolicy.prefersWebSocket
                      && configuration.streamingTransportPolicy.prewarmsWebSocket,
                  threads: threads)
    }

    /// The client with explicit transports (tests and benchmarks). `compressesRequests`: send
    /// HTTP `/responses` bodies zstd-compressed where libzstd is available, as the Codex CLI does
    /// when signed in with ChatGPT (PROTOCOL §4.2); the public initializer turns it on for every
    /// backend but a local one (the emulator).
    init(configuration: ChappieConfiguration, tools: [ChappieHostTool] = [], toolApprovalHandler: ChappieToolApprovalHandler? = nil,
         transport: any HTTPTransport, webSockets: any WebSocketConnector = WebSocketConnectors.platformDefault(),
         timeSource: ChappieTimeSource, compressesRequests: Bool = false, prewarmsWebSocket: Bool = false,
         threads: ThreadGroup = ThreadGroup()) {
        self.compressesRequests = compressesRequests
        prewarmPending = prewarmsWebSocket
        self.threads = threads
        self.webSockets = webSockets
        self.configuration = configuration
        harness = configuration.harness
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

    // MARK: Conversation

    /// Sends `text` as a user message and returns the reply text. Throws ``ChappieClientError``
    /// or `CancellationError`.
    public func send(_ text: String) async throws -> String {
        try await send(.user(text))
    }

    /// Sends `message` and returns the reply text. Throws ``ChappieClientError``,
    /// ``ChappieInputError`` (an attachment or web search the model or backend would refuse;
    /// nothing was sent) or `CancellationError`.
    public func send(_ message: ChappieInputMessage) async throws -> String {
        try await runTurn(appending: [message], replacing: false, model: nil, options: message.options, emit: { _ in }).outputText
    }

    /// Sends an explicit transcript and returns the response; the transcript and the reply become
    /// the client's conversation. Throws ``ChappieClientError`` or `CancellationError`.
    public func response(_ request: ChappieResponseRequest) async throws -> ChappieResponse {
        try await runTurn(appending: request.messages, replacing: true, model: request.model, options: request.options, emit: { _ in })
    }

    /// Streams the reply to `text` as a user message.
    public nonisolated func stream(_ text: String) -> AsyncThrowingStream<ChappieStreamEvent, any Error> {
        stream(.user(text))
    }

    /// Streams the reply to `message`. The stream ends after `.completed`, or throws
    /// ``ChappieClientError`` / `CancellationError`. Ending iteration early cancels the request.
    public nonisolated func stream(_ message: ChappieInputMessage) -> AsyncThrowingStream<ChappieStreamEvent, any Error> {
        makeStream { client, events in
            try await client.runTurn(appending: [message], replacing: false, model: nil, options: message.options,
                                     emit: events.emit, deliver: events.deliver)
        }
    }

    /// Streams the reply to an explicit transcript (see ``response(_:)``).
    public nonisolated func streamResponse(_ request: ChappieResponseRequest) -> AsyncThrowingStream<ChappieStreamEvent, any Error> {
        makeStream { client, events in
            try await client.runTurn(appending: request.messages, replacing: true, model: request.model, options: request.options,
                                     emit: events.emit, deliver: events.deliver)
        }
    }

    /// A stream whose events come from `body`, run in its own task; a consumer that falls behind
    /// gets consecutive text deltas merged (``EventChannel``), so it never costs more memory than
    /// the text it has not read.
    /// An approval request is sent so that the turn waits until the consumer has dealt with it
    /// (``EventChannel/sendAndWait(_:)``): the approval handler never runs ahead of the stream.
    nonisolated func makeStream(
        _ body: @escaping @Sendable (ChappieClient, TurnEvents) async throws -> ChappieResponse
    ) -> AsyncThrowingStream<ChappieStreamEvent, any Error> {
        EventChannel.stream { channel in
            let response = try await body(self, TurnEvents(emit: { channel.send($0) }, deliver: { await channel.sendAndWait($0) }))
            channel.send(.completed(response))
        }
    }

    /// Where a turn's events go: `emit` queues one, `deliver` waits until the consumer dealt with it.
    struct TurnEvents: Sendable {
        let emit: @Sendable (ChappieStreamEvent) -> Void
        let deliver: (@Sendable (ChappieStreamEvent) async -> Void)?
    }

    /// One turn; `textFormat` is the request's `text.format` (typed output, `ChappieClient+Generation`).
    func runTurn(appending messages: [ChappieInputMessage], replacing: Bool, model: String?,
                 options: ChappieMessageOptions, textFormat: ChappieJSONValue? = nil,
                 emit: @escaping @Sendable (ChappieStreamEvent) -> Void,
                 deliver: (@Sendable (ChappieStreamEvent) async -> Void)? = nil) async throws -> ChappieResponse {
        try await enterTurn()
        defer { leaveTurn() }
        try Task.checkCancellation()
        turnState = TurnState()
        await prewarmIfPending()
        try checkNotShutDown()
        let cancelled = runningTurnCancelled
        // The turn's work runs in a task of its own, so that ``shutdown()`` can cancel it.
        let (threads, client) = (threads, ObjectIdentifier(self))
        let turn = Task {
            try await ThreadGroup.current.withValue(threads) {
                try await Self.runningTurnOf.withValue(client) {
                    try await runRounds(appending: messages, replacing: replacing, model: model, options: options, textFormat: textFormat,
                                        emit: emit, deliver: deliver)
                }
            }
        }
        runningTurn = turn
        defer { runningTurn = nil }
        do {
            return try await withTaskCancellationHandler {
                try await turn.value
            } onCancel: {
                cancelled.withLock { $0 = true }
                turn.cancel()
            }
        } catch is CancellationError where shutdownTask != nil {
            throw ChappieClientError.clientShutDown
        }
    }

    /// The rounds of one turn: a request, then the host tools it calls, until a reply without
    /// tool calls. The transcript becomes the client's when the turn completes; when it fails or
    /// is cancelled after text was shown, the turn so far and the shown text (an assistant
    /// message marked ``ChappieInputMessage/isPartial``) are kept too.
    private func runRounds(appending messages: [ChappieInputMessage], replacing: Bool, model: String?,
                           options: ChappieMessageOptions, textFormat: ChappieJSONValue?,
                           emit: @escaping @Sendable (ChappieStreamEvent) -> Void,
                           deliver: (@Sendable (ChappieStreamEvent) async -> Void)?) async throws -> ChappieResponse {
        var transcript = (replacing ? [] : state.transcript) + messages.map(ChappieTranscriptItem.message)
        let executor = ToolExecutor(tools: tools, declaredNames: Set(harness.tools.map(\.name)), approvalHandler: approvalHandler,
                                    stopsOnDenial: configuration.stopsOnToolDenial, time: time)
        let slug = model ?? state.model
        if let effort = options.effectiveEffort, let entry = await catalog.cachedEntry(for: slug),
           !entry.supportedReasoningLevels.isEmpty, !entry.supportedReasoningLevels.contains(effort) {
            throw ChappieClientError.invalidRequest("\(slug) does not support reasoning effort \(effort)")
        }
        let webSearch = try await checkInput(messages, options: options, model: slug)
        var rounds = 0
        var repaired = false
        while true {
            let body = ResponsesRequestBody(model: slug, instructions: harness.requestInstructions,
                                            input: requestPrefix + ChappieTranscriptItem.replayInput(transcript), tools: declaredTools,
                                            reasoningEffort: options.effectiveEffort, promptCacheKey: state.threadID,
                                            textFormat: textFormat, reasoningSummary: options.reasoningSummary?.rawValue,
                                            verbosity: options.verbosity?.rawValue, strictToolNames: strictToolNames, webSearch: webSearch)
            let (json, sessionID, runner) = (body.json, state.threadID, runner)
            let response: ChappieResponse
            let head: HTTPResponseHead
            do {
                (response, head) = try await endingOnSignOut {
                    try await runner.runReportingHead(body: json, sessionID: sessionID, emit: emit)
                }
            } catch let interruption as TurnInterruption {
                if !interruption.shownText.isEmpty {
                    transcript.append(.message(ChappieInputMessage(role: .assistant, text: interruption.shownText, isPartial: true)))
                    commit(transcript)
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
                if !replacing, let (conversation, _) = ChappieContextRepair.removingOpaqueItems(from: state.transcript) { commit(conversation) }
                pipeline.logger(.warning, "responses.context_repaired",
                                ["reasoning": "\(repair.droppedReasoningItems)", "compaction": "\(repair.droppedCompactionItems)"])
                emit(.contextRepaired(repair))
                continue
            }
            await catalog.noteModelsETag(head.header("x-models-etag"))
            transcript += response.items.compactMap(ChappieTranscriptItem.fromOutputItem)
            let calls = response.items.compactMap { $0["type"] == "function_call" ? ChappieFunctionCall(outputItem: $0) : nil }
            guard !calls.isEmpty else {
                commit(transcript)
                return response
            }
            rounds += 1
            if rounds > configuration.maximumToolRounds { throw ChappieClientError.toolLoopLimitExceeded(configuration.maximumToolRounds) }
            let results = try await executor.execute(calls, emit: emit, deliver: deliver)
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
        return false
    }

    /// Makes `transcript` the conversation's.
    private func commit(_ transcript: [ChappieTranscriptItem]) {
        state.transcript = transcript
        state.updatedAt = time.now()
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
    private var requestPrefix: [ChappieJSONValue] {
        var prefix: [ChappieJSONValue] = []
        if let context = harness.contextMessage { prefix.append(ResponsesRequestBody.item(for: context)) }
        if let summary = state.compactedSummary { prefix.append(ResponsesRequestBody.item(for: .system(summary))) }
        return prefix
    }

    /// The harness tools plus every host tool the harness does not declare (first name wins).
    private var declaredTools: [ChappieHarnessTool] {
        var seen = Set<String>()
        return (harness.tools + tools.values.sorted { $0.name < $1.name }.map(\.declaration)).filter { seen.insert($0.name).inserted }
    }

    /// The host tools declared with `"strict": true` (typed tools).
    private var strictToolNames: Set<String> {
        Set(tools.values.filter(\.strict).map(\.name))
    }

    /// Registers a host tool (replacing one with the same name) for later turns.
    public func register(_ tool: ChappieHostTool) {
        tools[tool.name] = tool
    }

    /// Sets the handler that decides on `.ask` tool calls; without one they are denied.
    public func setToolApprovalHandler(_ handler: ChappieToolApprovalHandler?) {
        approvalHandler = handler
    }

    private var runner: ResponseTurnRunner {
        ResponseTurnRunner(pipeline: pipeline, transportPolicy: configuration.streamingTransportPolicy, streaming: streaming,
                           webSockets: webSockets, socket: socket, turnState: turnState, compressesRequests: compressesRequests)
    }

    /// Opens and warms the WebSocket (see ``ChappieStreamingTransportPolicy/prewarmsWebSocket``),
    /// so the first turn goes out incremental on it: the request the next turn would make, with no
    /// input. Nothing when no one is signed in, when the policy does not prefer WebSocket, or when
    /// a socket is kept already.
    ///
    /// Best effort: a failure is logged, and the next turn opens its own socket or falls back to
    /// HTTP/SSE as the policy says. It waits for a running turn to end first; called after
    /// ``shutdown()``, from the client's own tool handler or from a cancelled task, it does
    /// nothing.
    public func prewarm() async {
        guard configuration.streamingTransportPolicy.prefersWebSocket, (try? await enterTurn()) != nil else { return }
        defer { leaveTurn() }
        prewarmPending = false
        await warmWebSocket()
    }

    /// The warm-up the policy asks for before the first turn, once; the caller holds the turn slot.
    private func prewarmIfPending() async {
        guard prewarmPending else { return }
        prewarmPending = false
        await warmWebSocket()
    }

    /// ``prewarm()`` once the turn slot is held.
    private func warmWebSocket() async {
        guard await !socket.holdsSocket, (try? await pipeline.credentials.authorization(pipeline.credentialContext)) != nil else { return }
        let body = ResponsesRequestBody(model: state.model, instructions: harness.requestInstructions, input: requestPrefix,
                                        tools: declaredTools, reasoningEffort: nil, promptCacheKey: state.threadID,
                                        strictToolNames: strictToolNames)
        let (runner, sessionID) = (runner, state.threadID)
        await ThreadGroup.current.withValue(threads) { await runner.prewarm(body: body.json, sessionID: sessionID) }
    }

    // MARK: Lifetime

    /// Shuts the client down for good, and returns once it is down:
    /// - later turns, compactions and catalog requests throw ``ChappieClientError/clientShutDown``
    ///   at once, sending nothing, and so do the turns still queued;
    /// - the running turn is cancelled and waited for: its caller gets
    ///   ``ChappieClientError/clientShutDown``, and the text it showed stays in ``context()``,
    ///   marked ``ChappieInputMessage/isPartial`` (a compaction that runs is waited for);
    /// - the kept WebSocket is closed with a normal closure (code 1000);
    /// - the HTTP transport stops, and every thread the client started (on Linux the libcurl
    ///   loop and the WebSocket's I/O thread) has ended when it returns.
    ///
    /// The context stays readable and changeable, to save or to resume in a new client. Safe to
    /// call more than once and from any task: later calls wait for the first one's work. Called
    /// from one of the client's own tool handlers, it cancels that turn and returns at once; the
    /// rest happens once the turn has ended. It cannot be cancelled: it waits at most for the
    /// running turn to end and for the server to answer the WebSocket's close (2 seconds at most).
    public func shutdown() async {
        let work = startShutdown()
        if Self.runningTurnOf.get() == ObjectIdentifier(self) { return }
        await work.value
    }

    /// Runs a client for the length of `body` and always shuts it down
    /// (``shutdown()``), whether `body` returns or throws:
    ///
    /// ```swift
    /// let reply = try await ChappieClient.with(configuration: configuration) { client in
    ///     try await client.send("Hello")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: what the client is built from (see ``init(configuration:tools:toolApprovalHandler:timeSource:)``).
    ///   - tools: the host tools the model may call.
    ///   - toolApprovalHandler: decides on `.ask` tool calls; without one they are denied.
    ///   - isolation: the caller's actor, so `body` runs where the caller does.
    ///   - body: the work, given the client. Keep no reference to the client past it: afterwards
    ///     it throws ``ChappieClientError/clientShutDown``.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws, after the client has shut down.
    public static func with<Result>(
        configuration: ChappieConfiguration = ChappieConfiguration(), tools: [ChappieHostTool] = [],
        toolApprovalHandler: ChappieToolApprovalHandler? = nil, isolation: isolated (any Actor)? = #isolation,
        _ body: (ChappieClient) async throws -> Result
    ) async rethrows -> Result {
        let client = ChappieClient(configuration: configuration, tools: tools, toolApprovalHandler: toolApprovalHandler)
        do {
            let result = try await body(client)
            await client.shutdown()
            return result
        } catch {
            await client.shutdown()
            throw error
        }
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
        await turnGate.enterIgnoringCancellation()
        defer { leaveTurn() }
        await socket.close()
        await pipeline.transport.shutdown()
        await threads.join()
    }

    /// Throws ``ChappieClientError/clientShutDown`` once ``shutdown()`` was called.
    private func checkNotShutDown() throws {
        if shutdownTask != nil { throw ChappieClientError.clientShutDown }
    }

    /// The kernel ids of the threads the client started that have not been reaped (for tests).
    nonisolated var threadIDs: [Int32] { threads.threadIDs }

    /// Waits until no other turn runs; turns start in call order. Throws
    /// ``ChappieClientError/reentrantTurn`` at once when called from this client's own running
    /// turn (a tool handler), which would otherwise wait forever for the turn waiting for it, and
    /// `CancellationError` when the caller is cancelled while it waits.
    private func enterTurn() async throws {
        if Self.runningTurnOf.get() == ObjectIdentifier(self) { throw ChappieClientError.reentrantTurn }
        try checkNotShutDown()
        try await turnGate.enter()
        if shutdownTask != nil {
            turnGate.leave()
            throw ChappieClientError.clientShutDown
        }
    }

    /// Applies the context changes asked for during the turn, then hands the turn to the next
    /// waiter, or marks the client idle.
    private func leaveTurn() {
        if !deferredChanges.isEmpty {
            let now = time.now()
            for change in deferredChanges { change(&state, now) }
            deferredChanges.removeAll()
        }
        runningTurnCancelled.withLock { $0 = false }
        turnGate.leave()
    }

    /// Changes the context once no turn runs (in call order with turns), and returns it. Called
    /// from inside this client's own turn (a tool handler), the change is queued for the end of
    /// that turn instead of waiting for it, and the context it will produce is returned.
    private func changeContext(_ change: @escaping @Sendable (inout ChappieClientContext, Date) -> Void) async -> ChappieClientContext {
        if Self.runningTurnOf.get() == ObjectIdentifier(self) {
            deferredChanges.append(change)
            var projected = state
            change(&projected, time.now())
            return projected
        }
        await turnGate.enterIgnoringCancellation()
        defer { leaveTurn() }
        change(&state, time.now())
        return state
    }

    // MARK: Context

    /// A detached snapshot of the conversation. Right after a turn was cancelled (its stream's
    /// consumer stopped reading, or its task was cancelled), it first waits for that turn to end,
    /// so the snapshot holds the user's message and the text shown so far (marked
    /// ``ChappieInputMessage/isPartial``): an app that saves on "Stop" loses nothing.
    public func context() async -> ChappieClientContext {
        if runningTurnCancelled.withLock({ $0 }), Self.runningTurnOf.get() != ObjectIdentifier(self) {
            await turnGate.enterIgnoringCancellation()
            turnGate.leave()
        }
        return state
    }

    /// Starts a new conversation: empty transcript, no summary, a new thread id (prompt cache
    /// key); the session id and model are kept. A turn running meanwhile finishes first. Returns
    /// the new context.
    @discardableResult
    public func clearContext() async -> ChappieClientContext {
        await changeContext { state, now in
            state = ChappieClientContext(sessionID: state.sessionID, threadID: UUID().uuidString.lowercased(), model: state.model,
                                         transcript: [], compactedSummary: nil, createdAt: now, updatedAt: now)
        }
    }

    /// Adopts a saved context (its session id, thread id, model, messages and summary); later
    /// turns continue that conversation. A turn running meanwhile finishes first. Returns the
    /// adopted context.
    @discardableResult
    public func resumeContext(_ context: ChappieClientContext) async -> ChappieClientContext {
        await changeContext { state, now in
            state = context
            state.updatedAt = now
        }
    }

    /// Replaces the transcript with `summary` (sent as a system message ahead of later messages)
    /// and keeps the last `keepingLast` messages. A turn running meanwhile finishes first.
    /// Returns the new context.
    @discardableResult
    public func compactContext(summary: String, keepingLast: Int = 0) async -> ChappieClientContext {
        await changeContext { state, now in
            state.compactedSummary = summary
            state.transcript = Array(state.transcript.suffix(max(0, keepingLast)))
            state.updatedAt = now
        }
    }

    /// Lets the model compact the conversation: remote compaction v2 (a `/codex/responses`
    /// request ending in a `compaction_trigger` item, see `RemoteCompaction`), else v1
    /// (`POST /codex/responses/compact`), replaces the history with the user and
    /// developer messages plus one opaque compaction item; when neither is available, and always
    /// on a Sign in with ChatGPT sign-in (the public API has no compaction endpoint), a summary
    /// turn with Chappie's own prompt writes ``ChappieClientContext/compactedSummary`` (replacing
    /// the previous one, which it covers) and empties the transcript. Returns the new context.
    /// Throws ``ChappieClientError`` (`invalidResponse` for a compaction reply without its
    /// item); on error the context is unchanged, except that opaque items the server can no
    /// longer read are dropped (see ``ChappieStreamEvent/contextRepaired(_:)``) and the
    /// compaction is asked for once more without them.
    @discardableResult
    public func compactContext() async throws -> ChappieClientContext {
        try await enterTurn()
        defer { leaveTurn() }
        do {
            return try await compactHoldingTurn()
        } catch ChappieClientError.unreadableEncryptedContent(let message) {
            guard let (kept, repair) = ChappieContextRepair.removingOpaqueItems(from: state.transcript) else {
                throw ChappieClientError.unreadableEncryptedContent(message)
            }
            pipeline.logger(.warning, "compact.context_repaired",
                            ["reasoning": "\(repair.droppedReasoningItems)", "compaction": "\(repair.droppedCompactionItems)"])
            commit(kept)
            return try await compactHoldingTurn()
        }
    }

    /// ``compactContext()`` once the turn slot is held.
    private func compactHoldingTurn() async throws -> ChappieClientContext {
        let (runner, sessionID) = (runner, state.threadID)
        // The public API has no remote compaction (SIWC.md §1: only /responses and /models):
        // a Sign in with ChatGPT sign-in always gets the local, model-written summary.
        if try await pipeline.backend() == .codex {
            if let transcript = try await RemoteCompaction.compact(
                state.transcript, prefix: requestPrefix, model: state.model, instructions: harness.requestInstructions, tools: declaredTools,
                promptCacheKey: state.threadID, send: { try await runner.run(body: $0, sessionID: sessionID, emit: { _ in }) }) {
                state.transcript = transcript
                state.compactedSummary = nil
                state.updatedAt = time.now()
                return state
            }
            let body: ChappieJSONValue = [
                "model": .string(state.model), "instructions": .string(harness.requestInstructions),
                "input": .array(ChappieTranscriptItem.replayInput(state.transcript)), "tools": .array(declaredTools.map(ResponsesRequestBody.toolSpec)),
                "parallel_tool_calls": .bool(!declaredTools.isEmpty),
            ]
            do {
                let data = try await pipeline.sendJSON(method: "POST", url: configuration.endpoints.compact, body: Data(body.jsonString.utf8),
                                                       sessionID: state.threadID).body
                guard let output = (try? ChappieJSONValue(jsonData: data))?["output"]?.arrayValue else {
                    throw ChappieClientError.invalidResponse("the compaction answer has no output list")
                }
                state.transcript = output.compactMap(ChappieTranscriptItem.fromOutputItem)
                state.updatedAt = time.now()
                return state
            } catch let error as ChappieClientError {
                switch error {
                case .httpError(let status, _) where status == 404 || status == 405 || status >= 500:
                    break
                case .network, .invalidResponse:
                    break
                default:
                    throw error
                }
            }
        }
        let request = ResponsesRequestBody(model: state.model, instructions: harness.requestInstructions,
                                           input: requestPrefix + ChappieTranscriptItem.replayInput(state.transcript)
                                               + [ChappieTranscriptItem.message(.user(Self.summaryPrompt)).inputItem],
                                           tools: [], reasoningEffort: nil, promptCacheKey: state.threadID)
        let response = try await runner.run(body: request.json, sessionID: state.threadID, emit: { _ in })
        state.compactedSummary = response.outputText
        state.transcript = []
        state.updatedAt = time.now()
        return state
    }

    /// Chappie's own hand-off prompt for a local, model-written summary.
    static let summaryPrompt = """
        Write a compact summary of our conversation so far so that it can replace the full history. \
        Keep the user's goals, the decisions made, facts and numbers that matter, tool results still \
        relevant, and anything left to do. Write plain prose, no preamble.
        """

    /// The local size estimate against a context window of `contextWindow` tokens.
    public func contextSize(contextWindow: Int) -> ChappieContextSize {
        ChappieContextSize(usedTokens: state.estimatedTokens, contextWindow: contextWindow)
    }

    /// Uses `model` for later turns; a turn running meanwhile finishes with its model first.
    /// Returns the new context.
    @discardableResult
    public func selectModel(_ model: String) async -> ChappieClientContext {
        await changeContext { state, now in
            state.model = model
            state.updatedAt = now
        }
    }

    // MARK: Account, models, usage

    /// Who is signed in, from the ID token claims. Throws ``ChappieClientError/missingCredential``.
    public func accountInfo() async throws -> ChappieAccountInfo {
        try await pipeline.credentials.accountInfo()
    }

    /// The live model catalog sorted by priority (best first). Entries the SDK cannot read are
    /// skipped. The catalog is cached with its `ETag` for 300 seconds, and dropped early when a
    /// response's `x-models-etag` differs. Throws ``ChappieClientError``.
    public func models() async throws -> [ChappieModel] {
        try await models(forceRefresh: false)
    }

    /// The catalog, fetched again when `forceRefresh` is true. Throws ``ChappieClientError``.
    ///
    /// On a Sign in with ChatGPT sign-in the catalog is the public API's (`GET /v1/models`,
    /// `{"models":[…]}`): only the entries it marks `visibility: "list"` are returned, in the
    /// server's order. Either catalog belongs to the signed-in account: a sign-in to another
    /// account (or route) fetches it anew.
    public func models(forceRefresh: Bool) async throws -> [ChappieModel] {
        try checkNotShutDown()
        return try await catalog.models(forceRefresh: forceRefresh, sessionID: state.threadID)
    }

    /// The best model for `filter` (default: usable in the API with text input): the first
    /// picker-visible match by priority, else the first match, else nil. Throws ``ChappieClientError``.
    public func bestAvailableModel(filter: ChappieModelFilter = ChappieModelFilter(supportedInAPI: true, inputModality: "text")) async throws
        -> ChappieModel? {
        let matches = try await models(filter: filter)
        return matches.first { $0.visibility == "list" } ?? matches.first
    }

    /// A replacement for `slug` (default: the current model) when it is unavailable: the best
    /// other match for `filter`. Throws ``ChappieClientError``.
    public func fallbackModel(for slug: String? = nil,
                              filter: ChappieModelFilter = ChappieModelFilter(supportedInAPI: true, inputModality: "text")) async throws
        -> ChappieModel? {
        let current = slug ?? state.model
        let matches = try await models(filter: filter).filter { $0.slug != current }
        return matches.first { $0.visibility == "list" } ?? matches.first
    }

    /// The models that match `filter`, best first. Throws ``ChappieClientError``.
    public func models(filter: ChappieModelFilter) async throws -> [ChappieModel] {
        try await models().filter(filter.matches)
    }

    /// The account's usage limits from the rate-limits endpoint (`/wham/usage`). Throws ``ChappieClientError``.
    ///
    /// A Sign in with ChatGPT sign-in has no usage figures to read: the ChatGPT plan reports
    /// neither a remaining share nor a reset time to apps. There it throws
    /// ``ChappieClientError/publicAPI(_:)`` with ``ChappieAPIError/Code/usageFiguresUnavailable``
    /// at once, without a request; link to ``ChappieAPIError/manageUsageURL-type.property`` ("Manage usage") instead.
    public func usageLimits() async throws -> ChappieUsageLimitSnapshot {
        try checkNotShutDown()
        if try await pipeline.backend() == .publicAPI {
            throw ChappieClientError.publicAPI(ChappieAPIError(code: .usageFiguresUnavailable))
        }
        return try UsagePayload.snapshot(from: try await get(configuration.endpoints.usage))
    }

    /// An authorized `GET` through the pipeline; returns the body. Throws ``ChappieClientError``.
    private func get(_ url: URL) async throws -> Data {
        try await pipeline.sendJSON(method: "GET", url: url, body: nil, sessionID: state.threadID).body
    }
}
