extension ChappieEmulator {
    /// What the scripted model does for one `POST /backend-api/codex/responses` call. Queue replies
    /// with ``ChappieEmulator/enqueue(_:)``; when the queue is empty the model answers with
    /// ``ChappieEmulator/defaultReply(for:)`` text derived from the last user message.
    public enum ScriptedReply: Sendable, Equatable {
        /// Stream this assistant text as a message item, split into several deltas (PROTOCOL §5.6).
        case text(String)
        /// Stream a `function_call` output item calling `name` with `arguments` (a JSON object as text).
        case functionCall(name: String, arguments: String)
        /// Stream `response.created`, `response.in_progress`, then `response.failed` with this
        /// `error.code` and `error.message`, then close the connection (PROTOCOL §5.1, §5.4).
        case failed(code: String, message: String)
        /// Stream the start of a reply, then `response.incomplete` with `incomplete_details.reason`.
        case incomplete(reason: String)
        /// Answer with this HTTP status, raw body and extra headers instead of a stream.
        case httpError(status: Int, body: String, headers: [String: String])
        /// Stream the first `afterEvents` events of a normal text reply, then close the socket
        /// without the final chunk and without `response.completed`.
        case disconnect(afterEvents: Int)
        /// Send the response head, then nothing until the client leaves or the emulator shuts down.
        case stall
        /// Stream this text like ``text(_:)``, but wait `eventInterval` before each event after the
        /// response head (a slow drip, for idle-timeout and cancellation tests).
        case slowText(String, eventInterval: Duration)
        /// Answer HTTP 429 with the usage-limit body of PROTOCOL §7.3
        /// (`error.type = "usage_limit_reached"`, the account's `plan_type`, `resets_at` and
        /// `resets_in_seconds`), the rate-limit headers at 100 % and `x-codex-active-limit: codex`.
        case usageLimitReached(resetsInSeconds: Int)
    }
}
