import ChappieEmulator
import Foundation
import Testing

@Suite("Public API under Sign in with ChatGPT: /v1/models and /v1/responses (SIWC.md §4, §6.2–6.3)")
struct PublicAPITests {
    static func body(_ text: String = "ping", _ overrides: [String: Any] = [:], removing: [String] = []) -> [String: Any] {
        EmulatorHTTPClient.responsesBody(text, overrides: overrides, removing: removing)
    }

    @Test("/v1/models answers {\"models\":[…]} with slug, display_name and visibility, one entry hidden")
    func models() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueSignInWithChatGPTTokens()
            let answer = try await http.get("/v1/models?client_version=0.163.0", bearer: tokens.accessToken)
            #expect(answer.status == 200)
            let models = try #require(answer.json["models"] as? [[String: Any]])
            #expect(answer.json["data"] == nil && answer.json["object"] == nil)
            #expect(models.allSatisfy { $0["slug"] is String && $0["display_name"] is String && $0["visibility"] is String })
            #expect(models.contains { $0["visibility"] as? String == "list" })
            #expect(models.contains { $0["visibility"] as? String != "list" })
            #expect(try await http.get("/v1/models", bearer: tokens.accessToken).status == 200)
        }
    }

    @Test("/v1/responses streams standard Responses SSE with phase on messages and a completed output")
    func stream() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueSignInWithChatGPTTokens()
            let answer = try await http.postJSON("/v1/responses", Self.body("hello"), bearer: tokens.accessToken)
            #expect(answer.status == 200)
            #expect(answer.headers["content-type"]?.hasPrefix("text/event-stream") == true)
            #expect(answer.headers["x-request-id"]?.hasPrefix("req_") == true)
            #expect(answer.headers["x-codex-primary-used-percent"] == nil)
            let events = answer.events
            #expect(events.first?.type == "response.created")
            #expect(events.last?.type == "response.completed")
            let message = try #require(events.first { $0.type == "response.output_item.done" }?.data["item"] as? [String: Any])
            #expect(message["phase"] as? String == "final_answer")
            let completed = try #require(events.last?.data["response"] as? [String: Any])
            #expect((completed["output"] as? [Any])?.count == 1)
            let text = events.filter { $0.type == "response.output_text.delta" }.compactMap { $0.data["delta"] as? String }.joined()
            #expect(text == ChappieEmulator.defaultReply(for: "hello"))
        }
    }

    @Test("Codex tokens, missing tokens and grants without plan usage are refused before any stream")
    func authorization() async throws {
        try await withEmulator { emulator, http in
            let codex = await emulator.issueTokens()
            let declined = await emulator.issueSignInWithChatGPTTokens(planUsage: false)
            let withCodex = try await http.postJSON("/v1/responses", Self.body(), bearer: codex.accessToken)
            #expect(withCodex.status == 401 && withCodex.detail != nil)
            #expect(try await http.postJSON("/v1/responses", Self.body()).status == 401)
            #expect(try await http.get("/v1/models", bearer: codex.accessToken).status == 401)
            let noPlan = try await http.postJSON("/v1/responses", Self.body(), bearer: declined.accessToken)
            #expect(noPlan.status == 403)
            #expect((noPlan.json["error"] as? [String: Any])?["code"] as? String == "chatpass_v2_scope_not_authorized")
            let other = try await http.postJSON("/v1/chat/completions", ["model": "gpt-5.5"], bearer: declined.accessToken)
            #expect(other.status == 403)
            #expect((other.json["error"] as? [String: Any])?["code"] as? String == "subscription_sharing_route_not_supported")
            let live = await emulator.issueSignInWithChatGPTTokens()
            await emulator.expireSignInWithChatGPTAccessTokens()
            let expired = try await http.postJSON("/v1/responses", Self.body(), bearer: live.accessToken)
            #expect(expired.status == 401 && (expired.json["error"] as? [String: Any])?["code"] as? String == "token_expired")
        }
    }

    @Test(
        "Each rejected field answers 400 subscription_sharing_unsupported_capability naming it",
        arguments: [
            "background", "conversation", "max_output_tokens", "max_tool_calls", "metadata", "moderation", "multi_agent", "prompt",
            "prompt_cache_retention", "safety_identifier", "temperature", "top_logprobs", "top_p", "truncation", "user",
            "previous_response_id", "service_tier",
        ]
    )
    func rejectedField(_ field: String) async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueSignInWithChatGPTTokens()
            let answer = try await http.postJSON("/v1/responses", Self.body("x", [field: "value"]), bearer: tokens.accessToken)
            #expect(answer.status == 400)
            let error = try #require(answer.json["error"] as? [String: Any])
            #expect(error["code"] as? String == "subscription_sharing_unsupported_capability")
            #expect(error["param"] as? String == field)
        }
    }

    @Test("store:true, stream:false, a system message, a flat function tool and a hosted tool are refused with their param")
    func requestRules() async throws {
        try await withEmulator { emulator, http in
            let token = await emulator.issueSignInWithChatGPTTokens().accessToken
            let flatTool: [String: Any] = ["type": "function", "name": "f", "parameters": ["type": "object"]]
            let cases: [([String: Any], [String], String)] = [
                (["store": true], [], "store"), ([:], ["store"], "store"), (["stream": false], [], "stream"),
                (["input": [["type": "message", "role": "system", "content": "be nice"]]], [], "input[0].role"),
                (["tools": [flatTool]], [], "tools[0]"), (["tools": [["type": "image_generation"]]], [], "tools[0]"),
                (["tools": [["type": "file_search"]]], [], "tools[0]"),
            ]
            for (overrides, removing, param) in cases {
                let answer = try await http.postJSON("/v1/responses", Self.body("x", overrides, removing: removing), bearer: token)
                let error = answer.json["error"] as? [String: Any]
                #expect(answer.status == 400, "\(param)")
                #expect(error?["code"] as? String == "subscription_sharing_unsupported_capability" && error?["param"] as? String == param)
            }
            let notAList = try await http.postJSON("/v1/responses", Self.body("x", ["input": "hello"]), bearer: token)
            #expect(notAList.status == 422)
            let detail = try #require((notAList.json["detail"] as? [[String: Any]])?.first)
            #expect(detail["type"] as? String == "list_type" && detail["loc"] as? [String] == ["body", "input"])
            let unknownModel = try await http.postJSON("/v1/responses", Self.body("x", ["model": "gpt-0"]), bearer: token)
            #expect(unknownModel.status == 404 && (unknownModel.json["error"] as? [String: Any])?["code"] as? String == "model_not_found")
        }
    }

    @Test("A Codex harness (an originator header) may send flat function and custom tools and tool_search, as Codex 0.163 does")
    func codexHarness() async throws {
        try await withEmulator { emulator, http in
            let token = await emulator.issueSignInWithChatGPTTokens().accessToken
            let tools: [[String: Any]] = [
                ["type": "function", "name": "exec_command", "parameters": ["type": "object"]],
                ["type": "custom", "name": "apply_patch"], ["type": "tool_search"], ["type": "web_search"],
            ]
            let body = Self.body(#"use tool exec_command {"cmd":"ls"}"#, ["tools": tools])
            let codex = try await http.postJSON("/v1/responses", body, bearer: token, headers: ["originator": "codex_exec"])
            #expect(codex.status == 200)
            let call = codex.events.first { $0.type == "response.output_item.done" }?.data["item"] as? [String: Any]
            #expect(call?["name"] as? String == "exec_command")
            let direct = try await http.postJSON("/v1/responses", body, bearer: token)
            #expect(direct.status == 400 && (direct.json["error"] as? [String: Any])?["param"] as? String == "tools[0]")
            let hosted = try await http.postJSON(
                "/v1/responses", Self.body("x", ["tools": [["type": "image_generation"]]]), bearer: token, headers: ["originator": "codex_exec"]
            )
            #expect(hosted.status == 400)
        }
    }

    @Test("Function tools inside a namespace or an additional_tools item are called, and the round trip answers")
    func tools() async throws {
        try await withEmulator { emulator, http in
            let token = await emulator.issueSignInWithChatGPTTokens().accessToken
            let weather: [String: Any] = ["type": "function", "name": "get_weather", "parameters": ["type": "object"]]
            let namespace: [String: Any] = ["type": "namespace", "name": "weather", "description": "Weather", "tools": [weather]]
            let prompt = #"use tool get_weather {"city":"Paris"}"#
            // a namespace tool
            let first = try await http.postJSON("/v1/responses", Self.body(prompt, ["tools": [namespace]]), bearer: token)
            #expect(first.status == 200)
            let call = try #require(first.events.first { $0.type == "response.output_item.done" }?.data["item"] as? [String: Any])
            #expect(call["type"] as? String == "function_call" && call["name"] as? String == "get_weather")
            #expect(call["namespace"] as? String == "weather")
            var input = (Self.body(prompt)["input"] as? [[String: Any]]) ?? []
            input.append(call)
            input.append(["type": "function_call_output", "call_id": call["call_id"] ?? "", "output": "sunny"])
            let second = try await http.postJSON("/v1/responses", Self.body("", ["input": input, "tools": [namespace]]), bearer: token)
            let text = second.events.filter { $0.type == "response.output_text.delta" }.compactMap { $0.data["delta"] as? String }.joined()
            #expect(text == "The tool returned: sunny")
            // an additional_tools input item
            let additional: [String: Any] = ["type": "additional_tools", "role": "developer", "tools": [weather]]
            let extraInput = [additional] + ((Self.body(prompt)["input"] as? [[String: Any]]) ?? [])
            let third = try await http.postJSON("/v1/responses", Self.body("", ["input": extraInput]), bearer: token)
            let item = third.events.first { $0.type == "response.output_item.done" }?.data["item"] as? [String: Any]
            #expect(item?["type"] as? String == "function_call" && item?["namespace"] == nil)
        }
    }

    @Test(
        "Each documented plan error is scripted before the stream with its status and code",
        arguments: [
            (ChappieEmulator.PlanUsageFault.userNotEligible, 403, "subscription_sharing_user_not_eligible"),
            (.usageLimitExceeded, 429, "subscription_sharing_usage_limit_exceeded"),
            (.usageUnavailable, 503, "subscription_sharing_usage_unavailable"),
            (.routeNotSupported, 403, "subscription_sharing_route_not_supported"),
            (.invalidUser, 401, "subscription_sharing_invalid_user"),
            (.scopeNotAuthorized, 403, "chatpass_v2_scope_not_authorized"),
            (.invalidAuthorizationContext, 403, "chatpass_v2_invalid_authorization_context"),
            (.userUnavailable, 503, "subscription_sharing_user_unavailable"),
            (.modelNotFound, 404, "model_not_found"),
            (.unsupportedCapability(param: "reasoning"), 400, "subscription_sharing_unsupported_capability"),
        ]
    )
    func structuredFaults(_ fault: ChappieEmulator.PlanUsageFault, _ status: Int, _ code: String) async throws {
        try await withEmulator { emulator, http in
            let token = await emulator.issueSignInWithChatGPTTokens().accessToken
            await emulator.enqueuePlanUsageFault(fault)
            let answer = try await http.postJSON("/v1/responses", Self.body(), bearer: token)
            #expect(answer.status == status)
            #expect((answer.json["error"] as? [String: Any])?["code"] as? String == code)
            #expect(answer.headers["x-request-id"] != nil)
            #expect(try await http.postJSON("/v1/responses", Self.body(), bearer: token).status == 200)
        }
    }

    @Test("Admission refusals come as {\"detail\": text} or a nested detail object")
    func admissionFaults() async throws {
        try await withEmulator { emulator, http in
            let token = await emulator.issueSignInWithChatGPTTokens().accessToken
            await emulator.enqueuePlanUsageFault(.admission(status: 503))
            await emulator.enqueuePlanUsageFault(.admission(status: 403, nestedCode: "region_blocked"))
            let text = try await http.postJSON("/v1/responses", Self.body(), bearer: token)
            #expect(text.status == 503 && text.detail != nil)
            let nested = try await http.postJSON("/v1/responses", Self.body(), bearer: token)
            #expect(nested.status == 403 && (nested.json["detail"] as? [String: Any])?["code"] as? String == "region_blocked")
        }
    }

    @Test("A usage error can arrive mid-stream, after deltas, as response.failed or an error event")
    func midStreamFaults() async throws {
        try await withEmulator { emulator, http in
            let token = await emulator.issueSignInWithChatGPTTokens().accessToken
            await emulator.enqueuePlanUsageFault(.failedMidStream(code: "subscription_sharing_usage_limit_exceeded", afterDeltas: 2))
            await emulator.enqueuePlanUsageFault(.errorEventMidStream(code: "subscription_sharing_usage_unavailable", afterDeltas: 1))
            let failed = try await http.postJSON("/v1/responses", Self.body("a long enough message"), bearer: token)
            #expect(failed.status == 200)
            #expect(failed.events.filter { $0.type == "response.output_text.delta" }.count == 2)
            let last = try #require(failed.events.last)
            #expect(last.type == "response.failed")
            #expect(((last.data["response"] as? [String: Any])?["error"] as? [String: Any])?["code"] as? String
                == "subscription_sharing_usage_limit_exceeded")
            let errored = try await http.postJSON("/v1/responses", Self.body("a long enough message"), bearer: token)
            #expect(errored.events.last?.type == "error")
            #expect(errored.events.last?.data["code"] as? String == "subscription_sharing_usage_unavailable")
            #expect(!errored.events.contains { $0.type == "response.completed" })
        }
    }

    @Test("Stream faults: [DONE] before completion, no Content-Type, another Content-Type, an empty completed output")
    func streamFaults() async throws {
        try await withEmulator { emulator, http in
            let token = await emulator.issueSignInWithChatGPTTokens().accessToken
            await emulator.enqueuePlanUsageFault(.doneBeforeCompleted)
            let done = try await http.postJSON("/v1/responses", Self.body(), bearer: token)
            #expect(done.text.hasSuffix("data: [DONE]\n\n") && !done.text.contains("response.completed"))
            await emulator.enqueuePlanUsageFault(.withoutContentType)
            let bare = try await http.postJSON("/v1/responses", Self.body(), bearer: token)
            #expect(bare.status == 200 && bare.headers["content-type"] == nil && bare.events.last?.type == "response.completed")
            await emulator.enqueuePlanUsageFault(.contentType("application/json"))
            #expect(try await http.postJSON("/v1/responses", Self.body(), bearer: token).headers["content-type"] == "application/json")
            await emulator.enqueuePlanUsageFault(.emptyCompletedOutput)
            let empty = try await http.postJSON("/v1/responses", Self.body(), bearer: token)
            #expect(((empty.events.last?.data["response"] as? [String: Any])?["output"] as? [Any])?.isEmpty == true)
            #expect(empty.events.contains { $0.type == "response.output_item.done" })
        }
    }

    @Test("The app's weekly cap allows its number of responses, then answers 429 usage_limit_exceeded")
    func weeklyCap() async throws {
        try await withEmulator(.init(signInWithChatGPT: .init(weeklyResponseCap: 2))) { emulator, http in
            let token = await emulator.issueSignInWithChatGPTTokens().accessToken
            #expect(try await http.postJSON("/v1/responses", Self.body(), bearer: token).status == 200)
            #expect(try await http.postJSON("/v1/responses", Self.body(), bearer: token).status == 200)
            let capped = try await http.postJSON("/v1/responses", Self.body(), bearer: token)
            #expect(capped.status == 429)
            #expect((capped.json["error"] as? [String: Any])?["code"] as? String == "subscription_sharing_usage_limit_exceeded")
            #expect(!capped.text.contains("resets"))
            let otherApp = await emulator.issueSignInWithChatGPTTokens().accessToken
            #expect(try await http.postJSON("/v1/responses", Self.body(), bearer: otherApp).status == 200)
        }
    }

    @Test("A queued ScriptedReply applies to /v1/responses too: a disconnect ends the stream before response.completed")
    func sharedReplies() async throws {
        try await withEmulator { emulator, http in
            let token = await emulator.issueSignInWithChatGPTTokens().accessToken
            await emulator.enqueue(.text("scripted"))
            let scripted = try await http.postJSON("/v1/responses", Self.body(), bearer: token)
            #expect(scripted.events.filter { $0.type == "response.output_text.delta" }.compactMap { $0.data["delta"] as? String }
                .joined() == "scripted")
            await emulator.enqueue(.disconnect(afterEvents: 3))
            let cut = try? await http.postJSON("/v1/responses", Self.body(), bearer: token)
            #expect(cut?.events.contains { $0.type == "response.completed" } != true)
        }
    }
}
