extension ChappieClient {
    /// Sends `text` as a user message and returns the reply as a `Value`: the request asks for
    /// JSON following `Value`'s schema (strict structured output) and the reply is decoded.
    ///
    /// Throws ``ChappieGenerationError`` (the schema is unusable or refused, the reply is cut
    /// short or does not decode), ``ChappieClientError`` or `CancellationError`.
    public nonisolated func send<Value: ChappieGenerable>(_ text: String, generating type: Value.Type = Value.self) async throws -> Value {
        try await send(.user(text), generating: type)
    }

    /// Sends `message` and returns the reply as a `Value` (see ``send(_:generating:)-(String,_)``).
    ///
    /// Throws ``ChappieGenerationError``, ``ChappieClientError`` or `CancellationError`.
    public nonisolated func send<Value: ChappieGenerable>(_ message: ChappieInputMessage, generating type: Value.Type = Value.self) async throws -> Value {
        let format = try GenerationFormat<Value>()
        let response: ChappieResponse
        do {
            response = try await runStructuredTurn(message, textFormat: format.json, events: .none)
        } catch {
            throw GenerationFormat<Value>.mapRefusal(error)
        }
        return try format.decode(response.outputText)
    }

    /// Streams the reply to `text` as a user message as a `Value`: partial snapshots while the
    /// JSON streams in, then the decoded value (see ``ChappieGenerationStream``).
    public nonisolated func stream<Value: ChappieGenerable>(_ text: String, generating type: Value.Type = Value.self)
        -> ChappieGenerationStream<Value> {
        stream(.user(text), generating: type)
    }

    /// Streams the reply to `message` as a `Value` (see ``ChappieGenerationStream``). Ending
    /// iteration early cancels the request.
    public nonisolated func stream<Value: ChappieGenerable>(_ message: ChappieInputMessage, generating type: Value.Type = Value.self)
        -> ChappieGenerationStream<Value> {
        let format: GenerationFormat<Value>
        do {
            format = try GenerationFormat<Value>()
        } catch {
            return ChappieGenerationStream(failure: error)
        }
        let textFormat = format.json
        let events = makeStream { [self] _, events in try await runStructuredTurn(message, textFormat: textFormat, events: events) }
        return ChappieGenerationStream(events: events, format: format)
    }

    /// One typed-output turn. Structured output is not documented for a Sign in with ChatGPT
    /// sign-in: when that server refuses `text.format` (an unsupported capability naming it),
    /// the turn is sent once more with the schema as an instruction in the input instead, and
    /// later turns go that way at once; the reply is decoded and checked against the type as
    /// always.
    private nonisolated func runStructuredTurn(_ message: ChappieInputMessage, textFormat: ChappieJSONValue,
                                               events: ConversationEngine.TurnEvents) async throws -> ChappieResponse {
        do {
            return try await engine.runTurn(.message(message, textFormat: textFormat), events: events)
        } catch ChappieClientError.publicAPI(let error) where error.code == .unsupportedCapability
                    && PublicAPIRequestBody.namesStructuredOutput(error.param) {
            return try await engine.runTurn(.message(message, textFormat: textFormat), events: events)
        }
    }
}
