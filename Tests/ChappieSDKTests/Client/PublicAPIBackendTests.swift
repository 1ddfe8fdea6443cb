import ChappieSDKTesting
import ChappieTransport
import Foundation
import Testing
@_spi(ChappieTesting) @testable import ChappieCore

/// The fields the public API rejects (its preview limitations), plus the two it names elsewhere.
private let rejectedFields = ["background", "conversation", "max_output_tokens", "max_tool_calls", "metadata", "moderation", "multi_agent",
                              "prompt", "prompt_cache_retention", "safety_identifier", "temperature", "top_logprobs", "top_p", "truncation",
                              "user", "previous_response_id", "service_tier"]

private actor CallLog {
    var calls: [ChappieToolCall] = []
    func record(_ call: ChappieToolCall) { calls.append(call) }
}

@Suite("Public API backend (Sign in with ChatGPT)")
struct PublicAPIBackendTests {
    @Test("a turn goes to apiBase/responses over HTTP/SSE with only the public API's headers: no account, originator, session, turn state or zstd")
    func requestShape() async throws {
        // given a client that would prewarm and prefer a WebSocket, and compress bodies
        let transport = ScriptedTransport(replies: [sseReply(publicAPITextEvents("Hello"))])
        let webSockets = ScriptedWebSocketConnector([])
        let (client, _) = try await publicAPIClient(transport, webSockets: webSockets)
        // when
        let reply = try await client.send("Hi")
        // then
        #expect(reply == "Hello")
        #expect(await webSockets.connectCount == 0)
        let request = try #require(await transport.requests.first)
        #expect(request.url.absoluteString == "https://api.test/v1/responses")
        #expect(request.method == "POST")
        #expect(request.header("Accept") == "text/event-stream")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("Authorization")?.hasPrefix("Bearer ") == true)
        for absent in ["ChatGPT-Account-ID", "originator", "session_id", "x-client-request-id", "x-codex-turn-state", "Content-Encoding",
                       "OpenAI-Beta"] {
            #expect(request.header(absent) == nil, "\(absent) was sent")
        }
        let body = try #require(request.jsonBody?.objectValue)
        #expect(body["store"] == false)
        #expect(body["stream"] == true)
        #expect(body["input"]?.arrayValue != nil)
        #expect(Set(body.keys).isSubset(of: PublicAPIRequestBody.allowedFields))
    }

    @Test("response.completed with an empty output is rebuilt from response.output_item.done")
    func emptyCompletedOutput() async throws {
        let transport = ScriptedTransport(replies: [sseReply(publicAPITextEvents("Rebuilt"))])
        let (client, _) = try await publicAPIClient(transport)
        let response = try await client.response(ChappieResponseRequest(messages: [.user("Hi")]))
        #expect(response.outputText == "Rebuilt")
        #expect(response.items.count == 1)
        #expect(response.items.first?["type"] == "message")
        #expect(response.usage?.totalTokens == 7)
        #expect(await client.context().messages.last?.text == "Rebuilt")
    }

    @Test("a 200 stream without a Content-Type is accepted", arguments: [nil, "text/event-stream", "text/event-stream; charset=utf-8"])
    func acceptedContentTypes(contentType: String?) async throws {
        let transport = ScriptedTransport(replies: [sseReply(publicAPITextEvents("ok"), contentType: contentType)])
        let (client, _) = try await publicAPIClient(transport)
        #expect(try await client.send("Hi") == "ok")
    }

    @Test("a 200 with another Content-Type is refused, not read and not retried", arguments: ["application/json", "text/html"])
    func refusedContentType(contentType: String) async throws {
        let transport = ScriptedTransport(replies: [sseReply(publicAPITextEvents("should not show"), contentType: contentType)])
        let (client, _) = try await publicAPIClient(transport)
        var shown = ""
        let error = await #expect(throws: ChappieClientError.self) {
            for try await event in client.stream("Hi") { if case .textDelta(let text) = event { shown += text } }
        }
        guard case .invalidResponse(let message)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(message.contains("Content-Type"))
        #expect(shown.isEmpty)
        #expect(await transport.requests.count == 1)
    }

    @Test("[DONE] before response.completed is an interrupted stream; the text shown is kept as a partial reply")
    func doneBeforeCompleted() async throws {
        let events = Array(publicAPITextEvents("Half").prefix(2))
        // A completed event after [DONE] must not rescue the stream.
        let transport = ScriptedTransport(replies: [
            ScriptedTransport.Reply(status: 200, headers: ["content-type": "text/event-stream"],
                                    chunks: [sseBody(events, done: true), sseBody([publicAPITextEvents("Half")[3]])]),
        ])
        let (client, _) = try await publicAPIClient(transport)
        let error = await #expect(throws: ChappieClientError.self) { _ = try await client.send("Hi") }
        #expect(error == .streamEndedBeforeCompletion)
        let last = try #require(await client.context().messages.last)
        #expect(last.isPartial && last.text == "Half")
    }

    @Test("the end of the body before response.completed is an interrupted stream")
    func eofBeforeCompleted() async throws {
        let transport = ScriptedTransport(replies: [sseReply(Array(publicAPITextEvents("Cut").prefix(3)))])
        let (client, _) = try await publicAPIClient(transport)
        let error = await #expect(throws: ChappieClientError.self) { _ = try await client.send("Hi") }
        #expect(error == .streamEndedBeforeCompletion)
    }

    @Test("a host tool round trip: function tools go in one namespace tool, the replayed call names it, the output follows")
    func toolRoundTrip() async throws {
        let log = CallLog()
        let tool = ChappieHostTool(name: "lookup_stock", description: "Looks up stock",
                                   inputSchema: ["type": "object", "properties": ["sku": ["type": "string"]]]) { call in
            await log.record(call)
            return ChappieToolResult(output: #"{"in_stock":7}"#)
        }
        let call = #"{"id":"fc_1","type":"function_call","call_id":"call_1","namespace":"app","name":"lookup_stock","arguments":"{\"sku\":\"A1\"}"}"#
        let transport = ScriptedTransport(replies: [
            sseReply([#"{"type":"response.created","response":{"id":"resp_1"}}"#, #"{"type":"response.output_item.done","item":\#(call)}"#,
                      #"{"type":"response.completed","response":{"id":"resp_1","output":[]}}"#]),
            sseReply(publicAPITextEvents("7 in stock", id: "resp_2")),
        ])
        let (client, _) = try await publicAPIClient(transport, tools: [tool])
        #expect(try await client.send("How many A1?") == "7 in stock")
        #expect(await log.calls.map(\.name) == ["lookup_stock"])
        let requests = await transport.requests
        #expect(requests.count == 2)
        let first = try #require(requests.first?.jsonBody)
        let tools = try #require(first["tools"]?.arrayValue)
        #expect(tools.count == 1)
        #expect(tools.first?["type"] == "namespace")
        #expect(tools.first?["tools"]?.arrayValue?.allSatisfy { $0["type"] == "function" } == true)
        #expect(tools.first?["tools"]?.arrayValue?.contains { $0["name"] == "lookup_stock" } == true)
        let input = try #require(requests[1].jsonBody?["input"]?.arrayValue)
        let replayed = try #require(input.first { $0["type"] == "function_call" })
        #expect(replayed["namespace"] == "app")
        #expect(replayed["id"] == nil)
        #expect(input.contains { $0["type"] == "function_call_output" && $0["call_id"] == "call_1" })
    }

    @Test("no system role ever goes out: system messages and the compaction summary are developer messages")
    func noSystemRole() async throws {
        let transport = ScriptedTransport(replies: [sseReply(publicAPITextEvents("ok"))])
        let (client, _) = try await publicAPIClient(transport)
        await client.compactContext(summary: "Earlier: the user likes tea.")
        _ = try await client.response(ChappieResponseRequest(messages: [.system("Be brief."), .user("Hi")]))
        let input = try #require(await transport.requests.first?.jsonBody?["input"]?.arrayValue)
        #expect(!input.contains { $0["role"] == "system" })
        #expect(input.filter { $0["role"] == "developer" }.count >= 2)
    }

    @Test("options a caller sets never put a rejected field on the wire: fast mode, a reasoning effort, a tool, a long history")
    func rejectedFieldsNeverSent() async throws {
        let transport = ScriptedTransport { _, _ in sseReply(publicAPITextEvents("ok")) }
        let tool = ChappieHostTool(name: "noop", description: "Does nothing", inputSchema: ["type": "object"]) { _ in ChappieToolResult(output: "{}") }
        let (client, _) = try await publicAPIClient(transport, tools: [tool])
        _ = try await client.send(.user("fast", fastMode: true))
        _ = try await client.send(.user("deep", options: ChappieMessageOptions(reasoningEffort: "high")))
        _ = try await client.response(ChappieResponseRequest(messages: [.system("s"), .developer("d"), .assistant("a"), .user("u")], model: "gpt-6-sol"))
        for request in await transport.requests {
            let keys = Set(try #require(request.jsonBody?.objectValue).keys)
            #expect(keys.isSubset(of: PublicAPIRequestBody.allowedFields), "sent \(keys.subtracting(PublicAPIRequestBody.allowedFields))")
            #expect(keys.isDisjoint(with: rejectedFields))
        }
        #expect(await transport.requests[1].jsonBody?["reasoning"]?["effort"] == "high")
    }

    @Test("an unsupported capability names error.param, is not retried, and the next turn leaves that optional field out")
    func unsupportedCapability() async throws {
        let transport = ScriptedTransport { _, index in
            index == 0
                ? errorReply(400, #"{"error":{"code":"subscription_sharing_unsupported_capability","param":"reasoning","message":"echo: SECRET-INPUT"}}"#,
                             requestID: "req_cap")
                : sseReply(publicAPITextEvents("ok"))
        }
        let (client, _) = try await publicAPIClient(transport)
        let error = await #expect(throws: ChappieClientError.self) { _ = try await client.send(.user("hi", fastMode: true)) }
        guard case .publicAPI(let apiError)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(apiError.code == .unsupportedCapability)
        #expect(apiError.param == "reasoning")
        #expect(apiError.requestID == "req_cap")
        #expect(apiError.status == 400)
        #expect(error?.errorDescription?.contains("SECRET-INPUT") == false)
        #expect(await transport.requests.count == 1)
        #expect(await transport.requests[0].jsonBody?["reasoning"] != nil)
        // The same body is never sent again: the next turn goes without the field.
        _ = try await client.send(.user("again", fastMode: true))
        #expect(await transport.requests.count == 2)
        #expect(await transport.requests[1].jsonBody?["reasoning"] == nil)
        #expect(await transport.requests[1].jsonBody?["include"] == nil)
    }

    @Test("a usage limit in the middle of the stream, after text: the partial reply is kept, no reset time, the Manage-usage link and request id")
    func usageLimitMidStream() async throws {
        let events = Array(publicAPITextEvents("Partial").prefix(2)) + [
            #"{"type":"response.failed","response":{"id":"resp_1","status":"failed","error":{"code":"subscription_sharing_usage_limit_exceeded","message":"SECRET-INPUT echoed"}}}"#,
        ]
        let transport = ScriptedTransport(replies: [sseReply(events, requestID: "req_mid")])
        let (client, _) = try await publicAPIClient(transport)
        var shown = ""
        let error = await #expect(throws: ChappieClientError.self) {
            for try await event in client.stream("Hi") { if case .textDelta(let text) = event { shown += text } }
        }
        guard case .usageLimitReached(let limit)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(shown == "Partial")
        #expect(limit.resetsAt == nil && limit.plan == nil && limit.window == nil)
        #expect(limit.manageUsageURL == URL(string: "https://chatgpt.com/settings/usage"))
        #expect(limit.requestID == "req_mid")
        #expect(!limit.message.contains("SECRET-INPUT"))
        #expect(await transport.requests.count == 1)
        let last = try #require(await client.context().messages.last)
        #expect(last.isPartial && last.text == "Partial")
    }

    @Test("an error event in the middle of the stream after text ends the reply with its typed error, partial kept, not retried")
    func errorEventMidStream() async throws {
        let events = Array(publicAPITextEvents("Some").prefix(2)) + [
            #"{"type":"error","code":"subscription_sharing_usage_unavailable","message":"SECRET-INPUT","sequence_number":2}"#,
        ]
        let transport = ScriptedTransport(replies: [sseReply(events, requestID: "req_ev")])
        let (client, _) = try await publicAPIClient(transport)
        let error = await #expect(throws: ChappieClientError.self) { _ = try await client.send("Hi") }
        guard case .publicAPI(let apiError)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(apiError.code == .usageUnavailable)
        #expect(apiError.requestID == "req_ev")
        #expect(await transport.requests.count == 1)
        #expect(await client.context().messages.last?.isPartial == true)
    }

    @Test("usage unavailable before any text, in the stream, is retried with the bounded back-off, then typed")
    func usageUnavailableBeforeText() async throws {
        let failed = #"{"type":"response.failed","response":{"id":"r","error":{"code":"subscription_sharing_usage_unavailable"}}}"#
        let transport = ScriptedTransport { _, index in
            index < 2 ? sseReply([#"{"type":"response.created","response":{"id":"r"}}"#, failed]) : sseReply(publicAPITextEvents("back"))
        }
        let (client, _) = try await publicAPIClient(transport)
        #expect(try await client.send("Hi") == "back")
        #expect(await transport.requests.count == 3)
    }

    @Test("usageLimits() says plainly that the plan reports no figures, with the Manage-usage link, and sends nothing")
    func usageLimits() async throws {
        let transport = ScriptedTransport(replies: [])
        let (client, _) = try await publicAPIClient(transport)
        let error = await #expect(throws: ChappieClientError.self) { _ = try await client.usageLimits() }
        guard case .publicAPI(let apiError)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(apiError.code == .usageFiguresUnavailable)
        #expect(apiError.manageUsageURL == URL(string: "https://chatgpt.com/settings/usage"))
        #expect(await transport.requests.isEmpty)
    }

    @Test("compaction uses a local, model-written summary: one streamed request to /v1/responses, no trigger item, no compact endpoint")
    func compaction() async throws {
        let transport = ScriptedTransport { _, index in sseReply(publicAPITextEvents(index == 0 ? "first" : "Summary of it")) }
        let (client, _) = try await publicAPIClient(transport)
        _ = try await client.send("Hi")
        let context = try await client.compactContext()
        #expect(context.compactedSummary == "Summary of it")
        #expect(context.messages.isEmpty)
        let requests = await transport.requests
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.url.path == "/v1/responses" })
        let input = try #require(requests[1].jsonBody?["input"]?.arrayValue)
        #expect(!input.contains { $0["type"] == "compaction_trigger" })
    }

    @Test("plan usage not granted: refused before sending, with a typed error that asks for a consent sign-in")
    func planUsageNotGranted() async throws {
        let transport = ScriptedTransport(replies: [])
        let (client, _) = try await publicAPIClient(transport, credential: signInWithChatGPTCredential(planUsage: false))
        for call in ["send", "models"] {
            let error = await #expect(throws: ChappieClientError.self, "\(call)") {
                if call == "send" { _ = try await client.send("Hi") } else { _ = try await client.models() }
            }
            guard case .publicAPI(let apiError)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(apiError.code == .planUsageNotGranted)
            #expect(apiError.requiresPlanUsageConsent)
            #expect(error?.requiresReauthentication == true)
            #expect(apiError.recoverySuggestion?.contains("ChatGPT plan usage") == true)
        }
        #expect(await transport.requests.isEmpty)
    }
}
