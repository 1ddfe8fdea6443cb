import ChappieTransport
import Foundation

/// Compaction: replacing the conversation with a shorter one that stands for it, by the app's own
/// summary or by the model (remote compaction on the Codex backend, else a model-written summary).
extension ConversationEngine {
    /// Replaces the transcript with `summary` (sent as a system message ahead of later messages)
    /// and keeps the last `keepingLast` messages, once no turn runs. Returns the new context and
    /// its revision.
    func compactContext(summary: String, keepingLast: Int) async -> (context: ChappieClientContext, revision: Int) {
        await changeContext { state, now in
            state.compactedSummary = summary
            state.transcript = Self.fromLastMessages(keepingLast, of: state.transcript)
            state.updatedAt = now
        }
    }

    /// The end of `transcript` that holds its last `count` messages: from the `count`-th last
    /// message on, with the tool calls, outputs and reasoning between and after them (so a call
    /// after a kept message keeps its output); all of it when it has no more messages than that,
    /// none of it for a count of zero or less. An output left without its call is dropped when
    /// the history is sent.
    static func fromLastMessages(_ count: Int, of transcript: [ChappieTranscriptItem]) -> [ChappieTranscriptItem] {
        guard count > 0 else { return [] }
        let messages = transcript.indices.filter { transcript[$0].message != nil }
        guard messages.count > count else { return transcript }
        return Array(transcript[messages[messages.count - count]...])
    }

    /// Lets the model compact the conversation (see ``ChappieClient/compactContext()``); returns
    /// the new context and its revision. On error the context is unchanged, except that opaque
    /// items the server can no longer read are dropped and the compaction is asked for once
    /// more without them. Throws ``ChappieClientError`` (also ``ChappieClientError/reentrantTurn``
    /// from the engine's own tool handler) or `CancellationError`.
    func compactContext() async throws -> (context: ChappieClientContext, revision: Int) {
        try await compacting {
            do {
                try await compactHoldingGate()
            } catch ChappieClientError.unreadableEncryptedContent(let message) {
                guard let (kept, repair) = ChappieContextRepair.removingOpaqueItems(from: state.transcript) else {
                    throw ChappieClientError.unreadableEncryptedContent(message)
                }
                pipeline.logger(.warning, "compact.context_repaired",
                                ["reasoning": "\(repair.droppedReasoningItems)", "compaction": "\(repair.droppedCompactionItems)"])
                commit(kept)
                try await compactHoldingGate()
            }
            return (state, revision)
        }
    }

    /// ``compactContext()`` once the gate is held: remote compaction v2, else v1, on the Codex
    /// backend; a model-written summary when neither is available, and always on a Sign in with
    /// ChatGPT sign-in (the public API has no compaction endpoint, SIWC.md §1).
    private func compactHoldingGate() async throws {
        let (runner, sessionID) = (runner, state.threadID)
        if try await pipeline.backend() == .codex {
            if let transcript = try await RemoteCompaction.compact(
                state.transcript, prefix: requestPrefix, model: state.model, instructions: harness.requestInstructions, tools: declaredTools,
                promptCacheKey: sessionID, send: { try await runner.run(body: $0, sessionID: sessionID, emit: { _ in }) }) {
                change { state, now in
                    state.transcript = transcript
                    state.compactedSummary = nil
                    state.updatedAt = now
                }
                return
            }
            if let transcript = try await compactWithEndpoint(sessionID: sessionID) {
                change { state, now in
                    state.transcript = transcript
                    state.updatedAt = now
                }
                return
            }
        }
        let request = ResponsesRequestBody(model: state.model, instructions: harness.requestInstructions,
                                           input: requestPrefix + ChappieTranscriptItem.replayInput(state.transcript)
                                               + [ChappieTranscriptItem.message(.user(Self.summaryPrompt)).inputItem],
                                           tools: [], reasoningEffort: nil, promptCacheKey: sessionID)
        let summary = try await runner.run(body: request.json, sessionID: sessionID, emit: { _ in }).outputText
        change { state, now in
            state.compactedSummary = summary
            state.transcript = []
            state.updatedAt = now
        }
    }

    /// Remote compaction v1 (`POST /codex/responses/compact`): the compacted transcript, or nil
    /// when the endpoint is missing or failing (404, 405, 5xx, network, an unreadable answer), so
    /// that a summary turn stands in. Throws other ``ChappieClientError``s.
    private func compactWithEndpoint(sessionID: String) async throws -> [ChappieTranscriptItem]? {
        let body: ChappieJSONValue = [
            "model": .string(state.model), "instructions": .string(harness.requestInstructions),
            "input": .array(ChappieTranscriptItem.replayInput(state.transcript)), "tools": .array(declaredTools.map(ResponsesRequestBody.toolSpec)),
            "parallel_tool_calls": .bool(!declaredTools.isEmpty),
        ]
        do {
            let data = try await pipeline.sendJSON(method: .post, url: configuration.endpoints.compact, body: Data(body.jsonString.utf8),
                                                   sessionID: sessionID).body
            guard let output = (try? ChappieJSONValue(jsonData: data))?["output"]?.arrayValue else {
                throw ChappieClientError.invalidResponse("the compaction answer has no output list")
            }
            return output.compactMap(ChappieTranscriptItem.fromOutputItem)
        } catch let error as ChappieClientError {
            switch error {
            case .httpError(let status, _) where status == 404 || status == 405 || status >= 500: return nil
            case .network, .invalidResponse: return nil
            default: throw error
            }
        }
    }

    /// Chappie's own hand-off prompt for a local, model-written summary.
    static let summaryPrompt = """
        Write a compact summary of our conversation so far so that it can replace the full history. \
        Keep the user's goals, the decisions made, facts and numbers that matter, tool results still \
        relevant, and anything left to do. Write plain prose, no preamble.
        """
}
