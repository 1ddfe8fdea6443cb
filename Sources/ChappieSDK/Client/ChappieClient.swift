import Foundation

/// Talks to the ChatGPT/Codex backend for the signed-in user: sends messages, streams replies,
/// lists models and reads usage. It keeps a private transcript and thread id for its lifetime and
/// sends the full transcript, behind the harness, with every turn.
///
/// Every network call refreshes the credential first when needed and retries once after a 401.
/// Turns run one at a time in call order.
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
    private let transport: any HTTPTransport
    private let webSockets: any WebSocketConnector
    private let streaming = StreamingTransportState()
    private let credentials: CredentialManager
    private let time: ChappieTimeSource
    private var state: ChappieClientContext
    private var modelCatalog: ModelCatalogCache?
    private var turnInProgress = false
    private var turnWaiters: [CheckedContinuation<Void, Never>] = []

    /// Creates a client; prefer ``Chappie/client(configuration:harness:rateLimitBackoff:streamingTransportPolicy:)``.
    public init(configuration: ChappieConfiguration = ChappieConfiguration(), tools: [ChappieHostTool] = [],
                toolApprovalHandler: ChappieToolApprovalHandler? = nil, timeSource: ChappieTimeSource = .system) {
        self.init(configuration: configuration, tools: tools, toolApprovalHandler: toolApprovalHandler,
                  transport: URLSessionHTTPTransport(), timeSource: timeSource)
    }

    init(configuration: ChappieConfiguration, tools: [ChappieHostTool] = [], toolApprovalHandler: ChappieToolApprovalHandler? = nil,
         transport: any HTTPTransport, webSockets: any WebSocketConnector = URLSessionWebSocketConnector(),
         timeSource: ChappieTimeSource) {
        self.webSockets = webSockets
        self.configuration = configuration
        harness = configuration.harness
        self.tools = Dictionary(tools.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        approvalHandler = toolApprovalHandler
        self.transport = transport
        time = timeSource
        credentials = CredentialManager.shared(for: configuration, transport: transport, time: timeSource)
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

    /// Sends `message` and returns the reply text. Throws ``ChappieClientError`` or `CancellationError`.
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
        makeStream { client, emit in
            try await client.runTurn(appending: [message], replacing: false, model: nil, options: message.options, emit: emit)
        }
    }

    /// Streams the reply to an explicit transcript (see ``response(_:)``).
    public nonisolated func streamResponse(_ request: ChappieResponseRequest) -> AsyncThrowingStream<ChappieStreamEvent, any Error> {
        makeStream { client, emit in
            try await client.runTurn(appending: request.messages, replacing: true, model: request.model, options: request.options, emit: emit)
        }
    }

    private nonisolated func makeStream(
        _ body: @escaping @Sendable (ChappieClient, @escaping @Sendable (ChappieStreamEvent) -> Void) async throws -> ChappieResponse
    ) -> AsyncThrowingStream<ChappieStreamEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<ChappieStreamEvent, any Error>.makeStream()
        let task = Task {
            do {
                let response = try await body(self) { continuation.yield($0) }
                continuation.yield(.completed(response))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func runTurn(appending messages: [ChappieInputMessage], replacing: Bool, model: String?,
                         options: ChappieMessageOptions, emit: @escaping @Sendable (ChappieStreamEvent) -> Void) async throws -> ChappieResponse {
        await enterTurn()
        defer { leaveTurn() }
        try Task.checkCancellation()
        var transcript = (replacing ? [] : state.transcript) + messages.map(ChappieTranscriptItem.message)
        let executor = ToolExecutor(tools: tools, declaredNames: Set(harness.tools.map(\.name)), approvalHandler: approvalHandler,
                                    stopsOnDenial: configuration.stopsOnToolDenial, time: time)
        let slug = model ?? state.model
        if let effort = options.effectiveEffort, let entry = modelCatalog?.models.first(where: { $0.slug == slug }),
           !entry.supportedReasoningLevels.isEmpty, !entry.supportedReasoningLevels.contains(effort) {
            throw ChappieClientError.invalidRequest("\(slug) does not support reasoning effort \(effort)")
        }
        var rounds = 0
        while true {
            let body = ResponsesRequestBody(model: slug, instructions: harness.requestInstructions,
                                            input: requestPrefix + ChappieTranscriptItem.replayInput(transcript), tools: declaredTools,
                                            reasoningEffort: options.effectiveEffort, promptCacheKey: state.threadID)
            let (json, sessionID, runner) = (body.json, state.threadID, runner)
            let (response, head) = try await endingOnSignOut {
                try await runner.runReportingHead(body: json, sessionID: sessionID, emit: emit)
            }
            if let etag = head.header("x-models-etag"), let cache = modelCatalog, cache.etag != etag {
                modelCatalog = nil
            }
            transcript += response.items.compactMap(ChappieTranscriptItem.fromOutputItem)
            let calls = response.items.compactMap { $0["type"] == "function_call" ? ChappieFunctionCall(outputItem: $0) : nil }
            guard !calls.isEmpty else {
                state.transcript = transcript
                state.updatedAt = time.now()
                return response
            }
            rounds += 1
            if rounds > configuration.maximumToolRounds { throw ChappieClientError.toolLoopLimitExceeded(configuration.maximumToolRounds) }
            let results = try await executor.execute(calls, emit: emit)
            transcript += results.map { .functionCallOutput(callID: $0.call.callID, output: $0.output) }
        }
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
            guard let first = try await group.next(), let result = first else {
                try Task.checkCancellation()
                throw ChappieClientError.missingCredential
            }
            return result
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

    /// Registers a host tool (replacing one with the same name) for later turns.
    public func register(_ tool: ChappieHostTool) {
        tools[tool.name] = tool
    }

    /// Sets the handler that decides on `.ask` tool calls; without one they are denied.
    public func setToolApprovalHandler(_ handler: ChappieToolApprovalHandler?) {
        approvalHandler = handler
    }

    private var runner: ResponseTurnRunner {
        ResponseTurnRunner(transport: transport, credentials: credentials, endpoints: configuration.endpoints,
                           originator: configuration.originator, idleTimeout: configuration.streamIdleTimeout,
                           backoff: configuration.rateLimitBackoff, time: time, logger: configuration.logger,
                           policy: configuration.streamingTransportPolicy, streaming: streaming, webSockets: webSockets)
    }

    /// Waits until no other turn runs; turns start in call order.
    private func enterTurn() async {
        if turnInProgress {
            await withCheckedContinuation { turnWaiters.append($0) }
        } else {
            turnInProgress = true
        }
    }

    /// Hands the turn to the next waiter, or marks the client idle.
    private func leaveTurn() {
        if turnWaiters.isEmpty { turnInProgress = false } else { turnWaiters.removeFirst().resume() }
    }

    // MARK: Context

    /// A detached snapshot of the conversation.
    public func context() -> ChappieClientContext { state }

    /// Starts a new conversation: empty transcript, no summary, a new thread id (prompt cache
    /// key); the session id and model are kept. Returns the new context.
    @discardableResult
    public func clearContext() -> ChappieClientContext {
        let now = time.now()
        state = ChappieClientContext(sessionID: state.sessionID, threadID: UUID().uuidString.lowercased(), model: state.model,
                                     transcript: [], compactedSummary: nil, createdAt: now, updatedAt: now)
        return state
    }

    /// Adopts a saved context (its session id, thread id, model, messages and summary); later
    /// turns continue that conversation. Returns the adopted context.
    @discardableResult
    public func resumeContext(_ context: ChappieClientContext) -> ChappieClientContext {
        state = context
        state.updatedAt = time.now()
        return state
    }

    /// Replaces the transcript with `summary` (sent as a system message ahead of later messages)
    /// and keeps the last `keepingLast` messages. Returns the new context.
    @discardableResult
    public func compactContext(summary: String, keepingLast: Int = 0) -> ChappieClientContext {
        state.compactedSummary = summary
        state.transcript = Array(state.transcript.suffix(max(0, keepingLast)))
        state.updatedAt = time.now()
        return state
    }

    /// Lets the model compact the conversation: the backend's remote compaction
    /// (`POST /codex/responses/compact`, PROTOCOL §9) replaces the history with the user and
    /// developer messages plus an opaque compaction item; when that endpoint is unavailable, a
    /// summary turn with Chappie's own prompt writes ``ChappieClientContext/compactedSummary`` and
    /// empties the transcript. Returns the new context. Throws ``ChappieClientError``.
    @discardableResult
    public func compactContext() async throws -> ChappieClientContext {
        await enterTurn()
        defer { leaveTurn() }
        let body: ChappieJSONValue = [
            "model": .string(state.model), "instructions": .string(harness.requestInstructions),
            "input": .array(ChappieTranscriptItem.replayInput(state.transcript)), "tools": .array(declaredTools.map(ResponsesRequestBody.toolSpec)),
            "parallel_tool_calls": .bool(!declaredTools.isEmpty),
        ]
        do {
            let data = try await authorizedRequest(method: "POST", url: configuration.endpoints.compact, body: Data(body.jsonString.utf8))
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
        let request = ResponsesRequestBody(model: state.model, instructions: harness.requestInstructions,
                                           input: requestPrefix + ChappieTranscriptItem.replayInput(state.transcript)
                                               + [ChappieTranscriptItem.message(.user(Self.summaryPrompt)).inputItem],
                                           tools: [], reasoningEffort: nil, promptCacheKey: state.threadID)
        let response = try await runner.run(body: request.json, sessionID: state.threadID, emit: { _ in })
        let previous = state.compactedSummary.map { $0 + "\n\n" } ?? ""
        state.compactedSummary = previous + response.outputText
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

    /// Uses `model` for later turns. Returns the new context.
    @discardableResult
    public func selectModel(_ model: String) -> ChappieClientContext {
        state.model = model
        state.updatedAt = time.now()
        return state
    }

    // MARK: Account, models, usage

    /// Who is signed in, from the ID token claims. Throws ``ChappieClientError/missingCredential``.
    public func accountInfo() async throws -> ChappieAccountInfo {
        try await credentials.accountInfo()
    }

    /// The live model catalog sorted by priority (best first). Entries the SDK cannot read are
    /// skipped. The catalog is cached with its `ETag` for 300 seconds, and dropped early when a
    /// response's `x-models-etag` differs (PROTOCOL §8). Throws ``ChappieClientError``.
    public func models() async throws -> [ChappieModel] {
        try await models(forceRefresh: false)
    }

    /// The catalog, fetched again when `forceRefresh` is true. Throws ``ChappieClientError``.
    public func models(forceRefresh: Bool) async throws -> [ChappieModel] {
        if !forceRefresh, let cache = modelCatalog, time.now().timeIntervalSince(cache.fetchedAt) < ModelCatalogCache.lifetime {
            return cache.models
        }
        var components = URLComponents(url: configuration.endpoints.models, resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "client_version", value: ChappieVersion.modelsClientVersion)]
        let (data, head) = try await authorizedRequestWithHead(method: "GET", url: components?.url ?? configuration.endpoints.models, body: nil)
        let root = try? ChappieJSONValue(jsonData: data)
        guard let entries = (root?[Wire.models] ?? root?[Wire.data])?.arrayValue else {
            throw ChappieClientError.invalidResponse("the model list is not {\"models\":[…]}")
        }
        let models = entries.compactMap(ChappieModel.init(catalogEntry:)).sorted { $0.priority < $1.priority }
        modelCatalog = ModelCatalogCache(models: models, etag: head.header("etag"), fetchedAt: time.now())
        return models
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
    public func usageLimits() async throws -> ChappieUsageLimitSnapshot {
        try UsagePayload.snapshot(from: try await get(configuration.endpoints.usage))
    }

    /// An authorized `GET` with the 401-refresh-retry rule; returns the body. Throws ``ChappieClientError``.
    private func get(_ url: URL) async throws -> Data {
        try await authorizedRequest(method: "GET", url: url, body: nil)
    }

    /// An authorized JSON request with the 401-refresh-retry rule; returns the body of a 2xx
    /// answer. Throws ``ChappieClientError``.
    private func authorizedRequest(method: String, url: URL, body: Data?) async throws -> Data {
        try await authorizedRequestWithHead(method: method, url: url, body: body).body
    }

    /// ``authorizedRequest(method:url:body:)`` that also returns the response head.
    private func authorizedRequestWithHead(method: String, url: URL, body: Data?) async throws -> (body: Data, head: HTTPResponseHead) {
        if let violation = configuration.endpoints.violation { throw ChappieClientError.insecureEndpoint(violation) }
        var authorization = try await credentials.authorization()
        var retried = false
        while true {
            let request = HTTPRequest(method: method, url: url,
                                      headers: authorization.headers + runner.standardHeaders(sessionID: state.threadID, accept: "application/json"),
                                      body: body, idleTimeout: 60)
            let response: HTTPResponse
            do {
                response = try await transport.send(request, maximumBytes: 16 << 20)
            } catch let error as TransportError {
                throw ChappieClientError.network(error.message, mayHaveReachedServer: true)
            }
            if response.head.status == 401 && !retried {
                retried = true
                authorization = try await credentials.recoverFromUnauthorized(rejected: authorization)
                continue
            }
            guard (200..<300).contains(response.head.status) else {
                let error = ServerErrorBody(data: response.body, status: response.head.status)
                throw ResponsesErrorMapping.http(status: response.head.status, error: error, usage: nil)
            }
            return (response.body, response.head)
        }
    }

    private enum Wire {
        static let models = "models"
        static let data = "data"
    }
}


/// The last model catalog fetched, with its `ETag`.
struct ModelCatalogCache: Sendable {
    /// Seconds a catalog stays fresh (the Codex CLI's TTL, PROTOCOL §8).
    static let lifetime: TimeInterval = 300
    var models: [ChappieModel]
    var etag: String?
    var fetchedAt: Date
}
