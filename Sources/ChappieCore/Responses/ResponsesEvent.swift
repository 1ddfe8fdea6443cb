import ChappieTransport
import Foundation

/// One Responses streaming event, decoded by its JSON `type` (PROTOCOL §5.2), the same objects on
/// SSE `data:` lines and WebSocket text frames. Unknown types are kept as ``unknown(_:)`` and never
/// end a stream.
enum ResponsesEvent: Sendable, Equatable {
    /// `response.created`: the response id.
    case created(id: String?, model: String?)
    /// `response.output_text.delta`: the text and the id of the item it belongs to.
    case outputTextDelta(String, itemID: String?)
    /// `response.reasoning_summary_text.delta`.
    case reasoningSummaryDelta(String)
    /// `response.output_item.done`: the authoritative item.
    case outputItemDone(ChappieJSONValue)
    /// `response.output_item.added` of a `web_search_call` item (a search step starts); other
    /// added items are ignored.
    case webSearchStarted(ChappieWebSearchCall)
    /// `response.completed`: the final response object.
    case completed(id: String, model: String?, usage: ChappieTokenUsage?)
    /// `response.failed`: the error object.
    case failed(ServerErrorBody)
    /// `response.incomplete`: the reason.
    case incomplete(reason: String)
    /// `error` (inside a 200 stream or a WebSocket): status and error.
    case error(status: Int?, ServerErrorBody)
    /// `response.metadata` carrying the turn's `x-codex-turn-state` in its `headers` (PROTOCOL §5.2).
    case turnState(String)
    /// `codex.rate_limits` (WebSocket only).
    case rateLimits(ChappieUsageLimitSnapshot)
    /// An event the SDK does not act on (`response.in_progress`, `content_part.*`, …) or does not know.
    case ignored(type: String)

    /// Decodes SSE/WebSocket event data. Returns nil for data that is not a JSON object (skipped, as
    /// the Codex CLI does, e.g. `[DONE]`); `fallbackType` (the SSE `event:` name) is used when the
    /// payload has no `type`.
    ///
    /// Deltas, nearly all of a stream, take a fast path that reads only the fields a delta needs
    /// (``DeltaEventScanner``); an SSE event named as something other than a delta skips it. Every
    /// other event, and any delta the scanner hands back, is decoded in full.
    static func decode(_ data: String, fallbackType: String? = nil) -> ResponsesEvent? {
        if fallbackType.map(isDeltaType) ?? true, let fields = DeltaEventScanner.scan(data), let delta = fields.delta {
            switch fields.type ?? fallbackType {
            case Wire.outputTextDelta: return .outputTextDelta(delta, itemID: fields.itemID)
            case Wire.reasoningSummaryDelta: return .reasoningSummaryDelta(delta)
            default: break
            }
        }
        let bytes = Data(data.utf8)
        guard let object = (try? ChappieJSONValue(jsonData: bytes))?.objectValue else { return nil }
        let type = object[Wire.type]?.stringValue ?? fallbackType ?? ""
        let response = object[Wire.response]?.objectValue
        switch type {
        case "response.created":
            return .created(id: response?[Wire.id]?.stringValue, model: response?[Wire.model]?.stringValue)
        case Wire.outputTextDelta:
            return .outputTextDelta(object[Wire.delta]?.stringValue ?? "", itemID: object[Wire.itemID]?.stringValue)
        case Wire.reasoningSummaryDelta:
            return .reasoningSummaryDelta(object[Wire.delta]?.stringValue ?? "")
        case "response.output_item.done":
            guard let item = object[Wire.item] else { return .ignored(type: type) }
            return .outputItemDone(item)
        case "response.output_item.added":
            guard let call = object[Wire.item].flatMap(ChappieWebSearchCall.init(outputItem:)) else { return .ignored(type: type) }
            return .webSearchStarted(call)
        case "response.completed", "response.done":
            guard let id = response?[Wire.id]?.stringValue else { return .ignored(type: type) }
            return .completed(id: id, model: response?[Wire.model]?.stringValue, usage: response?[Wire.usage].flatMap(usage))
        case "response.failed":
            let error = response?[Wire.error]?.objectValue ?? [:]
            return .failed(ServerErrorBody(object: [Wire.error: .object(error)], status: 200))
        case "response.incomplete":
            let reason = response?[Wire.incompleteDetails]?[Wire.reason]?.stringValue ?? "unknown"
            return .incomplete(reason: reason)
        case "error":
            let status = (object[Wire.status] ?? object[Wire.statusCode])?.intValue
            let body: ServerErrorBody = object[Wire.error]?.objectValue != nil
                ? ServerErrorBody(object: object, status: status ?? 200)
                : ServerErrorBody(code: object[Wire.code]?.stringValue, message: Redaction.clean(object[Wire.message]?.stringValue ?? "stream error"),
                                  param: object[Wire.param]?.stringValue)
            return .error(status: status, body)
        case "response.metadata":
            let headers = object[Wire.headers]?.objectValue ?? response?[Wire.headers]?.objectValue
            guard let state = headers?[TurnState.headerName]?.stringValue else { return .ignored(type: type) }
            return .turnState(state)
        case "codex.rate_limits":
            return .rateLimits(rateLimits(object))
        default:
            return .ignored(type: type)
        }
    }

    /// Parses a `usage` object; nil when it is empty or malformed.
    static func usage(_ value: ChappieJSONValue) -> ChappieTokenUsage? {
        guard let usage = value.objectValue, let input = usage[Wire.inputTokens]?.intValue,
              let output = usage[Wire.outputTokens]?.intValue else { return nil }
        return ChappieTokenUsage(
            inputTokens: input,
            cachedInputTokens: usage[Wire.inputDetails]?[Wire.cachedTokens]?.intValue ?? 0,
            outputTokens: output,
            reasoningOutputTokens: usage[Wire.outputDetails]?[Wire.reasoningTokens]?.intValue ?? 0,
            totalTokens: usage[Wire.totalTokens]?.intValue ?? input + output)
    }

    private static func rateLimits(_ object: [String: ChappieJSONValue]) -> ChappieUsageLimitSnapshot {
        let limits = object[Wire.rateLimits]?.objectValue
        func window(_ value: ChappieJSONValue?) -> ChappieUsageWindow? {
            guard let window = value?.objectValue, let used = window[Wire.usedPercent]?.doubleValue else { return nil }
            return ChappieUsageWindow(usedPercent: used, windowMinutes: window[Wire.windowMinutes]?.intValue,
                                      resetsAt: window[Wire.resetAt]?.doubleValue.map(Date.init(timeIntervalSince1970:)))
        }
        let credits = object[Wire.credits]?.objectValue.map {
            ChappieCredits(hasCredits: $0[Wire.hasCredits]?.boolValue ?? false, unlimited: $0[Wire.unlimited]?.boolValue ?? false,
                           balance: $0[Wire.balance]?.stringValue)
        }
        return ChappieUsageLimitSnapshot(primary: window(limits?[Wire.primary]), secondary: window(limits?[Wire.secondary]),
                                         plan: object[Wire.planType]?.stringValue.map(ChappiePlan.init(rawValue:)), credits: credits)
    }

    /// Whether an SSE event name is one of the delta events (or a name the fast path cannot rule out).
    private static func isDeltaType(_ name: String) -> Bool {
        name == Wire.outputTextDelta || name == Wire.reasoningSummaryDelta || name == Wire.messageEvent || name.isEmpty
    }

    private enum Wire {
        static let outputTextDelta = "response.output_text.delta"
        static let reasoningSummaryDelta = "response.reasoning_summary_text.delta"
        /// The SSE event type when the stream names none.
        static let messageEvent = "message"
        static let type = "type"
        static let headers = "headers"
        static let response = "response"
        static let id = "id"
        static let model = "model"
        static let delta = "delta"
        static let itemID = "item_id"
        static let item = "item"
        static let usage = "usage"
        static let error = "error"
        static let incompleteDetails = "incomplete_details"
        static let reason = "reason"
        static let status = "status"
        static let statusCode = "status_code"
        static let code = "code"
        static let message = "message"
        static let param = "param"
        static let inputTokens = "input_tokens"
        static let outputTokens = "output_tokens"
        static let totalTokens = "total_tokens"
        static let inputDetails = "input_tokens_details"
        static let cachedTokens = "cached_tokens"
        static let outputDetails = "output_tokens_details"
        static let reasoningTokens = "reasoning_tokens"
        static let rateLimits = "rate_limits"
        static let primary = "primary"
        static let secondary = "secondary"
        static let usedPercent = "used_percent"
        static let windowMinutes = "window_minutes"
        static let resetAt = "reset_at"
        static let credits = "credits"
        static let hasCredits = "has_credits"
        static let unlimited = "unlimited"
        static let balance = "balance"
        static let planType = "plan_type"
    }
}
