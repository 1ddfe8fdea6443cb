import Foundation
import Testing
@testable import ChappieCore

@Suite("Responses event decoding")
struct ResponsesEventTests {
    @Test("events are dispatched on the JSON type, not the SSE event name")
    func dispatchOnType() {
        let event = ResponsesEvent.decode(#"{"type":"response.output_text.delta","delta":"hi","item_id":"msg_1"}"#, fallbackType: "something.else")
        #expect(event == .outputTextDelta("hi", itemID: "msg_1"))
    }

    @Test("the SSE event name is used when the payload has no type")
    func fallbackType() {
        #expect(ResponsesEvent.decode(#"{"delta":"x"}"#, fallbackType: "response.output_text.delta") == .outputTextDelta("x", itemID: nil))
    }

    @Test("unknown types are kept as ignored and non-JSON data is skipped")
    func unknownAndNonJSON() {
        #expect(ResponsesEvent.decode(#"{"type":"response.brand_new","x":1}"#) == .ignored(type: "response.brand_new"))
        #expect(ResponsesEvent.decode("[DONE]") == nil)
        #expect(ResponsesEvent.decode("") == nil)
    }

    @Test("response.completed carries id and usage; a malformed usage is nil")
    func completed() {
        let event = ResponsesEvent.decode(#"{"type":"response.completed","response":{"id":"resp_1","model":"gpt-5.5","usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":4},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":2},"total_tokens":15}}}"#)
        #expect(event == .completed(id: "resp_1", model: "gpt-5.5", usage: ChappieTokenUsage(inputTokens: 10, cachedInputTokens: 4, outputTokens: 5, reasoningOutputTokens: 2, totalTokens: 15)))
        let noUsage = ResponsesEvent.decode(#"{"type":"response.completed","response":{"id":"resp_2","usage":{}}}"#)
        #expect(noUsage == .completed(id: "resp_2", model: nil, usage: nil))
    }

    @Test("response.failed codes map to typed errors", arguments: [
        ("context_length_exceeded", ChappieClientError.contextWindowExceeded("m")),
        ("server_is_overloaded", .serverOverloaded("m")),
        ("invalid_prompt", .invalidRequest("m")),
        ("rate_limit_exceeded", .responseFailed(code: "rate_limit_exceeded", message: "m")),
    ])
    func failedCodes(code: String, expected: ChappieClientError) throws {
        let event = try #require(ResponsesEvent.decode(#"{"type":"response.failed","response":{"id":"r","status":"failed","error":{"code":"\#(code)","message":"m"}}}"#))
        guard case .failed(let body) = event else { Issue.record("not failed: \(event)"); return }
        #expect(ResponsesErrorMapping.failed(body) == expected)
    }

    @Test("an error event inside a 200 stream with a 429 usage limit becomes usageLimitReached")
    func errorEventUsageLimit() throws {
        let event = try #require(ResponsesEvent.decode(#"{"type":"error","status":429,"error":{"type":"usage_limit_reached","message":"limit","plan_type":"plus","resets_at":1700000000}}"#))
        guard case .error(let status, let body) = event else { Issue.record("not an error"); return }
        let error = ResponsesErrorMapping.http(status: status ?? 0, error: body, usage: nil)
        #expect(error == .usageLimitReached(ChappieUsageLimit(plan: ChappiePlan(rawValue: "plus"), resetsAt: Date(timeIntervalSince1970: 1_700_000_000), window: nil, message: "limit")))
    }

    @Test("codex.rate_limits becomes a snapshot with windows ordered by duration")
    func rateLimitsEvent() throws {
        let event = ResponsesEvent.decode(#"{"type":"codex.rate_limits","plan_type":"pro","rate_limits":{"primary":{"used_percent":42,"window_minutes":10080,"reset_at":1700000000},"secondary":{"used_percent":5.5,"window_minutes":300}},"credits":{"has_credits":true,"unlimited":false,"balance":"12"}}"#)
        guard case .rateLimits(let snapshot) = event else { Issue.record("not rate limits"); return }
        #expect(snapshot.primary?.windowMinutes == 300)
        #expect(snapshot.secondary?.usedPercent == 42)
        #expect(snapshot.plan?.displayName == "Pro")
        #expect(snapshot.credits?.balance == "12")
    }
}

@Suite("Error bodies")
struct ServerErrorBodyTests {
    @Test("every body shape yields a code and a bounded message", arguments: [
        (#"{"detail":"Store must be set to false"}"#, nil as String?, "Store must be set to false"),
        (#"{"detail":[{"loc":["body"],"msg":"field required"}]}"#, nil, "field required"),
        (#"{"error":{"message":"used","type":"invalid_request_error","code":"refresh_token_reused"}}"#, "refresh_token_reused", "used"),
        (#"{"error":"authorization_declined","error_description":"Denied"}"#, "authorization_declined", "Denied"),
        ("upstream connect error", nil, "upstream connect error"),
        ("<html><body>502 Bad Gateway</body></html>", nil, "an HTML error page"),
    ])
    func shapes(body: String, code: String?, message: String) {
        let parsed = ServerErrorBody(data: Data(body.utf8), status: 502)
        #expect(parsed.code == code)
        #expect(parsed.message == message)
    }

    @Test("a huge body is truncated on a character boundary")
    func truncation() {
        let parsed = ServerErrorBody(data: Data(("{\"detail\":\"" + String(repeating: "é", count: 5000) + "\"}").utf8), status: 400)
        #expect(parsed.message.utf8.count < 600)
        #expect(parsed.message.contains("truncated"))
    }
}

@Suite("Response accumulation")
struct ResponseAccumulatorTests {
    @Test("deltas are shown and the final item supplies text that was never streamed")
    func itemDoneSuppliesMissingText() {
        var accumulator = ResponseAccumulator()
        #expect(accumulator.textDelta("Hel", itemID: "msg_1") == "Hel")
        let message: ChappieJSONValue = ["type": "message", "id": "msg_1", "role": "assistant", "content": [["type": "output_text", "text": "Hello"]]]
        #expect(accumulator.itemDone(message) == "lo")
        #expect(accumulator.response(id: "r", model: nil, usage: nil).outputText == "Hello")
    }

    @Test("an empty delta is never shown")
    func emptyDelta() {
        var accumulator = ResponseAccumulator()
        #expect(accumulator.textDelta("", itemID: nil) == nil)
        #expect(!accumulator.hasShownOutput)
    }
}
