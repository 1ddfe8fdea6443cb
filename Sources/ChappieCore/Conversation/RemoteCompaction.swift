/// Remote compaction v2, what the Codex CLI 0.163 does by default (feature
/// `remote_compaction_v2`, `codex-rs/core/src/compact_remote_v2.rs`): an ordinary streamed
/// `POST /codex/responses` whose `input` is the history followed by one
/// `{"type":"compaction_trigger"}` item. The server answers with exactly one `compaction` output
/// item carrying `encrypted_content`, an opaque stand-in for the history; other output items may
/// come with it and are ignored. The next requests send the user, developer and system messages
/// of the history (the newest within ``retainedMessageTokenBudget``) followed by that item, and
/// no earlier compaction item.
///
/// ``ChappieClient/compactContext()`` tries this first; when the server does not take the
/// trigger it falls back to remote compaction v1 (`/responses/compact`, PROTOCOL §9) and then
/// to a local summary. A reply without a usable `compaction` item is a typed error and changes
/// nothing.
enum RemoteCompaction {
    /// Tokens of retained messages kept after a compaction (Codex's budget), newest first, by
    /// the local estimate of 4 characters per token.
    static let retainedMessageTokenBudget = 64_000

    /// The input item that asks for a compaction.
    static let trigger: ChappieJSONValue = [Wire.type: .string(Wire.compactionTrigger)]

    /// Runs a v2 compaction of `transcript` and returns the transcript that replaces it, or nil
    /// when the server does not support v2 (it rejected the trigger), so the caller falls back.
    /// `prefix` is what every request starts with (the harness context, a summary); `send`
    /// streams one Responses request body and returns the completed response.
    /// Throws ``ChappieClientError/invalidResponse(_:)`` for a reply without exactly one
    /// `compaction` item with `encrypted_content`, and what `send` throws otherwise.
    static func compact(
        _ transcript: [ChappieTranscriptItem], prefix: [ChappieJSONValue], model: String, instructions: String,
        tools: [ChappieHarnessTool], promptCacheKey: String,
        send: (ChappieJSONValue) async throws -> ChappieResponse
    ) async throws -> [ChappieTranscriptItem]? {
        let body = requestBody(history: prefix + ChappieTranscriptItem.replayInput(transcript), model: model, instructions: instructions,
                               tools: tools, promptCacheKey: promptCacheKey)
        let response: ChappieResponse
        do {
            response = try await send(body)
        } catch let error as ChappieClientError where isUnsupported(error) {
            return nil
        }
        return compactedTranscript(transcript, item: try compactionItem(in: response))
    }

    /// The request body: a normal Responses body (`store:false`, `stream:true`, the tools) whose
    /// input is `history` followed by ``trigger``.
    static func requestBody(history: [ChappieJSONValue], model: String, instructions: String, tools: [ChappieHarnessTool],
                            promptCacheKey: String) -> ChappieJSONValue {
        ResponsesRequestBody(model: model, instructions: instructions, input: history + [trigger], tools: tools,
                             reasoningEffort: nil, promptCacheKey: promptCacheKey).json
    }

    /// The one `compaction` output item of `response`. Throws
    /// ``ChappieClientError/invalidResponse(_:)`` when there is none or more than one, or when it
    /// has no non-empty `encrypted_content`.
    static func compactionItem(in response: ChappieResponse) throws -> ChappieJSONValue {
        let items = response.items.filter { $0[Wire.type]?.stringValue == Wire.compaction }
        guard items.count == 1, let item = items.first else {
            throw ChappieClientError.invalidResponse(
                "the compaction reply has \(items.count) compaction items among \(response.items.count) output items; expected exactly one")
        }
        guard let content = item[Wire.encryptedContent]?.stringValue, !content.isEmpty else {
            throw ChappieClientError.invalidResponse("the compaction reply's compaction item has no encrypted_content")
        }
        return item
    }

    /// The transcript after a compaction: the user, developer and system messages of
    /// `transcript`, the newest first within ``retainedMessageTokenBudget`` (at least the newest
    /// one), in their order, then `item`. Assistant messages, tool calls and outputs, reasoning
    /// and earlier compaction items are dropped: `item` stands for them.
    static func compactedTranscript(_ transcript: [ChappieTranscriptItem], item: ChappieJSONValue) -> [ChappieTranscriptItem] {
        var kept: [ChappieTranscriptItem] = []
        var budget = retainedMessageTokenBudget
        for entry in transcript.reversed() {
            guard let message = entry.message, message.role != .assistant else { continue }
            let tokens = max(1, (message.text.count + 3) / 4)
            guard tokens <= budget || kept.isEmpty else { break }
            kept.append(entry)
            budget -= min(budget, tokens)
        }
        return kept.reversed() + [.compaction(item)]
    }

    /// Whether `error` says the server does not take the trigger item (a server without v2
    /// answers 400 for the unknown input item, or has no such route), so v1 is worth trying.
    static func isUnsupported(_ error: ChappieClientError) -> Bool {
        switch error {
        case .invalidRequest: true
        case .httpError(let status, _): [400, 404, 405, 422].contains(status)
        default: false
        }
    }

    private enum Wire {
        static let type = "type"
        static let compactionTrigger = "compaction_trigger"
        static let compaction = "compaction"
        static let encryptedContent = "encrypted_content"
    }
}
