import ChappieTransport
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
    /// The conversation engine: the one owner of the context, the turns and the lifetime.
    nonisolated let engine: ConversationEngine

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
        self.configuration = configuration
        harness = configuration.harness
        engine = ConversationEngine(configuration: configuration, tools: tools, toolApprovalHandler: toolApprovalHandler, transport: transport,
                                    webSockets: webSockets, timeSource: timeSource, compressesRequests: compressesRequests,
                                    prewarmsWebSocket: prewarmsWebSocket, threads: threads)
    }

    // MARK: Conversation

    /// Sends `text` as a user message and returns the reply text. Throws ``ChappieClientError``
    /// or `CancellationError`.
    public nonisolated func send(_ text: String) async throws -> String {
        try await send(.user(text))
    }

    /// Sends `message` and returns the reply text. Throws ``ChappieClientError``,
    /// ``ChappieInputError`` (an attachment or web search the model or backend would refuse;
    /// nothing was sent) or `CancellationError`.
    public nonisolated func send(_ message: ChappieInputMessage) async throws -> String {
        try await engine.runTurn(.message(message), events: .none).outputText
    }

    /// Sends an explicit transcript and returns the response; the transcript and the reply become
    /// the client's conversation. Throws ``ChappieClientError`` or `CancellationError`.
    public nonisolated func response(_ request: ChappieResponseRequest) async throws -> ChappieResponse {
        try await engine.runTurn(.request(request), events: .none)
    }

    /// Streams the reply to `text` as a user message.
    public nonisolated func stream(_ text: String) -> AsyncThrowingStream<ChappieStreamEvent, any Error> {
        stream(.user(text))
    }

    /// Streams the reply to `message`. The stream ends after `.completed`, or throws
    /// ``ChappieClientError`` / `CancellationError`. Ending iteration early cancels the request.
    public nonisolated func stream(_ message: ChappieInputMessage) -> AsyncThrowingStream<ChappieStreamEvent, any Error> {
        makeStream { engine, events in try await engine.runTurn(.message(message), events: events) }
    }

    /// Streams the reply to an explicit transcript (see ``response(_:)``).
    public nonisolated func streamResponse(_ request: ChappieResponseRequest) -> AsyncThrowingStream<ChappieStreamEvent, any Error> {
        makeStream { engine, events in try await engine.runTurn(.request(request), events: events) }
    }

    /// A stream whose events come from `body`, run in its own task; a consumer that falls behind
    /// gets consecutive text deltas merged (``EventChannel``), so it never costs more memory than
    /// the text it has not read.
    /// An approval request is sent so that the turn waits until the consumer has dealt with it
    /// (``EventChannel/sendAndWait(_:)``): the approval handler never runs ahead of the stream.
    nonisolated func makeStream(
        _ body: @escaping @Sendable (ConversationEngine, ConversationEngine.TurnEvents) async throws -> ChappieResponse
    ) -> AsyncThrowingStream<ChappieStreamEvent, any Error> {
        let engine = engine
        return EventChannel.stream { channel in
            let events = ConversationEngine.TurnEvents(emit: { channel.send($0) }, deliver: { await channel.sendAndWait($0) })
            channel.send(.completed(try await body(engine, events)))
        }
    }

    /// Registers a host tool (replacing one with the same name) for later turns.
    public nonisolated func register(_ tool: ChappieHostTool) async {
        await engine.register(tool)
    }

    /// Sets the handler that decides on `.ask` tool calls; without one they are denied.
    public nonisolated func setToolApprovalHandler(_ handler: ChappieToolApprovalHandler?) async {
        await engine.setToolApprovalHandler(handler)
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
    public nonisolated func prewarm() async {
        await engine.prewarm()
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
    public nonisolated func shutdown() async {
        await engine.shutdown()
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

    /// The kernel ids of the threads the client started that have not been reaped (for tests).
    nonisolated var threadIDs: [Int32] { engine.threads.threadIDs }

    // MARK: Context

    /// A detached snapshot of the conversation. Right after a turn was cancelled (its stream's
    /// consumer stopped reading, or its task was cancelled), it first waits for that turn to end,
    /// so the snapshot holds the user's message and the text shown so far (marked
    /// ``ChappieInputMessage/isPartial``): an app that saves on "Stop" loses nothing.
    public nonisolated func context() async -> ChappieClientContext {
        await engine.context()
    }

    /// Starts a new conversation: empty transcript, no summary, a new thread id (prompt cache
    /// key); the session id and model are kept. A turn running meanwhile finishes first. Returns
    /// the new context.
    @discardableResult
    public nonisolated func clearContext() async -> ChappieClientContext {
        await engine.changeContext { state, now in
            state = ChappieClientContext(sessionID: state.sessionID, threadID: UUID().uuidString.lowercased(), model: state.model,
                                         transcript: [], compactedSummary: nil, createdAt: now, updatedAt: now)
        }.context
    }

    /// Adopts a saved context (its session id, thread id, model, messages and summary); later
    /// turns continue that conversation. A turn running meanwhile finishes first. Returns the
    /// adopted context.
    @discardableResult
    public nonisolated func resumeContext(_ context: ChappieClientContext) async -> ChappieClientContext {
        await revisionedResume(context).context
    }

    /// Replaces the transcript with `summary` (sent as a system message ahead of later messages)
    /// and keeps the last `keepingLast` messages, with the tool calls and outputs that came with
    /// and after them (all of the transcript when it has no more messages; none for zero or a
    /// negative count). A turn running meanwhile finishes first. Returns the new context.
    @discardableResult
    public nonisolated func compactContext(summary: String, keepingLast: Int = 0) async -> ChappieClientContext {
        await engine.compactContext(summary: summary, keepingLast: keepingLast).context
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
    public nonisolated func compactContext() async throws -> ChappieClientContext {
        try await engine.compactContext().context
    }

    /// The local size estimate against a context window of `contextWindow` tokens.
    public nonisolated func contextSize(contextWindow: Int) async -> ChappieContextSize {
        ChappieContextSize(usedTokens: await engine.state.estimatedTokens, contextWindow: contextWindow)
    }

    /// Uses `model` for later turns; a turn running meanwhile finishes with its model first.
    /// Returns the new context.
    @discardableResult
    public nonisolated func selectModel(_ model: String) async -> ChappieClientContext {
        await engine.changeContext { state, now in
            state.model = model
            state.updatedAt = now
        }.context
    }

    // MARK: Account, models, usage

    /// Who is signed in, from the ID token claims. Throws ``ChappieClientError/missingCredential``.
    public nonisolated func accountInfo() async throws -> ChappieAccountInfo {
        try await engine.pipeline.credentials.accountInfo()
    }

    /// The live model catalog sorted by priority (best first). Entries the SDK cannot read are
    /// skipped. The catalog is cached with its `ETag` for 300 seconds, and dropped early when a
    /// response's `x-models-etag` differs. Throws ``ChappieClientError``.
    public nonisolated func models() async throws -> [ChappieModel] {
        try await models(forceRefresh: false)
    }

    /// The catalog, fetched again when `forceRefresh` is true. Throws ``ChappieClientError``.
    ///
    /// On a Sign in with ChatGPT sign-in the catalog is the public API's (`GET /v1/models`,
    /// `{"models":[…]}`): only the entries it marks `visibility: "list"` are returned, in the
    /// server's order. Either catalog belongs to the signed-in account: a sign-in to another
    /// account (or route) fetches it anew.
    public nonisolated func models(forceRefresh: Bool) async throws -> [ChappieModel] {
        try await engine.catalog.models(forceRefresh: forceRefresh, sessionID: try await engine.requestSessionID())
    }

    /// The best model for `filter` (default: usable in the API with text input): the first
    /// picker-visible match by priority, else the first match, else nil. Throws ``ChappieClientError``.
    public nonisolated func bestAvailableModel(filter: ChappieModelFilter = ChappieModelFilter(supportedInAPI: true, inputModality: "text")) async throws
        -> ChappieModel? {
        let matches = try await models(filter: filter)
        return matches.first { $0.visibility == "list" } ?? matches.first
    }

    /// A replacement for `slug` (default: the current model) when it is unavailable: the best
    /// other match for `filter`. Throws ``ChappieClientError``.
    public nonisolated func fallbackModel(for slug: String? = nil,
                              filter: ChappieModelFilter = ChappieModelFilter(supportedInAPI: true, inputModality: "text")) async throws
        -> ChappieModel? {
        let current: String
        if let slug { current = slug } else { current = await engine.state.model }
        let matches = try await models(filter: filter).filter { $0.slug != current }
        return matches.first { $0.visibility == "list" } ?? matches.first
    }

    /// The models that match `filter`, best first. Throws ``ChappieClientError``.
    public nonisolated func models(filter: ChappieModelFilter) async throws -> [ChappieModel] {
        try await models().filter(filter.matches)
    }

    /// The account's usage limits from the rate-limits endpoint (`/wham/usage`). Throws ``ChappieClientError``.
    ///
    /// A Sign in with ChatGPT sign-in has no usage figures to read: the ChatGPT plan reports
    /// neither a remaining share nor a reset time to apps. There it throws
    /// ``ChappieClientError/publicAPI(_:)`` with ``ChappieAPIError/Code/usageFiguresUnavailable``
    /// at once, without a request; link to ``ChappieAPIError/manageUsageURL-type.property`` ("Manage usage") instead.
    public nonisolated func usageLimits() async throws -> ChappieUsageLimitSnapshot {
        let sessionID = try await engine.requestSessionID()
        if try await engine.pipeline.backend() == .publicAPI {
            throw ChappieClientError.publicAPI(ChappieAPIError(code: .usageFiguresUnavailable))
        }
        return try UsagePayload.snapshot(
            from: try await engine.pipeline.sendJSON(method: .get, url: configuration.endpoints.usage, body: nil, sessionID: sessionID).body)
    }
}
