import Foundation

extension ChappieEmulator {
    /// What the scripted model does for one `POST /backend-api/codex/responses` call, or for one
    /// `response.create` frame on the Responses WebSocket. Queue replies with
    /// ``ChappieEmulator/enqueue(_:)``; when the queue is empty the emulator uses
    /// ``ChappieEmulator/Configuration/standingReply`` if set, else the scripted model answers with
    /// ``ChappieEmulator/defaultReply(for:)`` text derived from the last user message.
    ///
    /// Faults are per request: each queued reply is used by exactly one call, optionally only by
    /// a call made with one account's token (``ChappieEmulator/enqueue(_:forAccountID:)``). The
    /// scripted model is deterministic in the request's
    /// input, so a request retried after a ``cut(_:afterEvents:ending:)`` of the default answer
    /// streams the same text again (a faithful replay after a reconnect); queue a different
    /// ``text(_:)`` after the cut to make the replay diverge.
    public enum ScriptedReply: Sendable, Equatable {
        /// Stream this assistant text as a message item, split into several deltas.
        case text(String)
        /// Stream a `function_call` output item calling `name` with `arguments` (a JSON object as text).
        case functionCall(name: String, arguments: String)
        /// Stream several `function_call` output items in one response (parallel tool calls),
        /// each with its own `call_id` and streamed argument deltas, in the order given.
        case functionCalls([ScriptedFunctionCall])
        /// Stream `response.created`, `response.in_progress`, then `response.failed` with this
        /// `error.code` and `error.message`, then close the connection.
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
        /// Answer HTTP 429 with the backend's usage-limit body
        /// (`error.type = "usage_limit_reached"`, the account's `plan_type`, `resets_at` and
        /// `resets_in_seconds`), the rate-limit headers at 100 % and `x-codex-active-limit: codex`.
        case usageLimitReached(resetsInSeconds: Int)
        /// Send `body` byte for byte as the SSE body of a 200 `text/event-stream` response, cut into
        /// HTTP chunks at the byte offsets `chunkOffsets` (ascending; offsets outside `1..<body.count`
        /// are ignored), waiting `chunkInterval` before each chunk (nil = no wait), then end the
        /// body normally. Nothing is parsed or checked, so any captured stream (even a malformed
        /// one) replays exactly. On a WebSocket each SSE event's `data` (several `data:` lines
        /// joined with LF; empty data and `[DONE]` skipped) becomes one text frame.
        case replaySSE(Data, chunkOffsets: [Int] = [], chunkInterval: Duration? = nil)
        /// Stream the first `afterEvents` events of `reply` (events of the Responses stream,
        /// not counting the WebSocket's `codex.rate_limits`), then end the connection as `ending`
        /// says, without a terminal event. A reply that is not a stream (e.g. ``httpError(status:body:headers:)``)
        /// is sent unchanged; for ``replaySSE(_:chunkOffsets:chunkInterval:)`` over HTTP the count is chunks.
        indirect case cut(ScriptedReply, afterEvents: Int, ending: StreamCut)
        /// Close the connection without answering (no status line): a network error for the
        /// client, with nothing received. On a WebSocket the socket closes without a close frame.
        case dropConnection
        /// Stream an `error` event. Over HTTP: a 200 stream of
        /// `response.created`, `response.in_progress`, then
        /// `{"type":"error","error":{"type":…,"code":…,"message":…,"param":null},"sequence_number":2}`,
        /// then the connection closes (`status` is not sent). On a WebSocket: after
        /// `codex.rate_limits`, one frame `{"type":"error","status":…,"error":{"type":…,"code":…,"message":…}}`;
        /// the socket stays open for the next `response.create`.
        case errorEvent(status: Int, type: String, code: String, message: String)

        /// Stream one `compaction` output item (remote compaction v2, the answer to a request whose
        /// input ends with `{"type":"compaction_trigger"}`), with `encryptedContent` as its
        /// `encrypted_content` (nil leaves the field out, a malformed reply). The emulator answers
        /// every trigger request this way, with generated content, when nothing else is queued.
        case compaction(encryptedContent: String?)

        /// The WebSocket connection-limit error: status 400,
        /// `error.code = "websocket_connection_limit_reached"` with the real message. Codex
        /// retries it on a new socket. The status and `error.type` are assumptions (not observed).
        public static let webSocketConnectionLimitReached = ScriptedReply.errorEvent(
            status: 400, type: "invalid_request_error", code: "websocket_connection_limit_reached",
            message: "Responses websocket connection limit reached (60 minutes). Create a new websocket connection to continue."
        )
    }

    /// One call of ``ScriptedReply/functionCalls(_:)``.
    public struct ScriptedFunctionCall: Sendable, Equatable {
        /// The tool name.
        public var name: String
        /// The arguments, a JSON object as text.
        public var arguments: String

        /// Creates a call.
        public init(name: String, arguments: String) {
            self.name = name
            self.arguments = arguments
        }
    }
}
