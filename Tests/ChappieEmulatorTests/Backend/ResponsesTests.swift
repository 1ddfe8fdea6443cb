import ChappieEmulator
import Foundation
import Testing

@Suite("POST /backend-api/codex/responses (PROTOCOL §4, §5)")
struct ResponsesTests {
    static let path = "/backend-api/codex/responses"

    @Test("A text reply streams the realistic event order with consecutive sequence numbers")
    func happyPath() async throws {
        try await withEmulator { emulator, http in
            // given
            let tokens = await emulator.issueTokens()
            // when
            let answer = try await http.postJSON(Self.path, EmulatorHTTPClient.responsesBody("hi there"), bearer: tokens.accessToken)
            // then
            #expect(answer.status == 200)
            #expect(answer.headers["content-type"]?.hasPrefix("text/event-stream") == true)
            let events = answer.events
            let types = events.map(\.type)
            #expect(events.allSatisfy { $0.name == $0.type })
            #expect(events.map { $0.data["sequence_number"] as? Int } == Array(0..<events.count))
            let deltaCount = types.filter { $0 == "response.output_text.delta" }.count
            #expect(deltaCount >= 3)
            #expect(types == [
                "response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
            ] + Array(repeating: "response.output_text.delta", count: deltaCount) + [
                "response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed",
            ])
            let text = events.filter { $0.type == "response.output_text.delta" }.compactMap { $0.data["delta"] as? String }.joined()
            #expect(text == ChappieEmulator.defaultReply(for: "hi there"))
            #expect(text.utf8.count > text.count)  // multi-byte characters
            let itemID = try #require((events[2].data["item"] as? [String: Any])?["id"] as? String)
            #expect(itemID.hasPrefix("msg_"))
            #expect(events.filter { $0.type == "response.output_text.delta" }.allSatisfy {
                $0.data["item_id"] as? String == itemID && $0.data["output_index"] as? Int == 0 && $0.data["content_index"] as? Int == 0
            })
            let completed = try #require(events.last?.data["response"] as? [String: Any])
            #expect((completed["id"] as? String)?.hasPrefix("resp_") == true)
            #expect(completed["object"] as? String == "response")
            #expect(completed["status"] as? String == "completed")
            #expect(completed["model"] as? String == "gpt-5.5")
            #expect((completed["output"] as? [Any])?.count == 1)
            let usage = try #require(completed["usage"] as? [String: Any])
            let input = try #require(usage["input_tokens"] as? Int)
            let output = try #require(usage["output_tokens"] as? Int)
            #expect(input > 0 && output > 0)
            #expect(usage["total_tokens"] as? Int == input + output)
            #expect((usage["input_tokens_details"] as? [String: Any])?["cached_tokens"] as? Int == 0)
            #expect((usage["output_tokens_details"] as? [String: Any])?["reasoning_tokens"] as? Int == 0)
            let created = try #require(events.first?.data["response"] as? [String: Any])
            #expect(created["id"] as? String == completed["id"] as? String)
            #expect(created["status"] as? String == "in_progress")
        }
    }

    @Test("The reply carries rate-limit, model, etag, request-id and turn-state headers")
    func headers() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            let first = try await http.postJSON(Self.path, EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken)
            let second = try await http.postJSON(
                Self.path, EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken,
                headers: ["x-codex-turn-state": "ts_keep"]
            )
            #expect(first.headers["x-codex-primary-used-percent"] == "1")
            #expect(second.headers["x-codex-primary-used-percent"] == "2")
            #expect(first.headers["x-codex-primary-window-minutes"] == "300")
            #expect(first.headers["x-codex-secondary-window-minutes"] == "10080")
            #expect(Int(first.headers["x-codex-primary-reset-at"] ?? "") != nil)
            #expect(Int(first.headers["x-codex-secondary-reset-at"] ?? "") != nil)
            #expect(first.headers["x-codex-credits-has-credits"] == "False")
            #expect(first.headers["x-codex-credits-unlimited"] == "False")
            #expect(first.headers["x-codex-credits-balance"] != nil)
            #expect(first.headers["x-codex-plan-type"] == "plus")
            #expect(first.headers["openai-model"] == "gpt-5.5")
            #expect(first.headers["x-models-etag"]?.isEmpty == false)
            #expect(first.headers["x-request-id"]?.hasPrefix("req_") == true)
            #expect(first.headers["x-codex-turn-state"]?.isEmpty == false)
            #expect(second.headers["x-codex-turn-state"] == "ts_keep")
        }
    }

    @Test("Requested reasoning adds a reasoning item with summary deltas and encrypted content first")
    func reasoning() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            let body = EmulatorHTTPClient.responsesBody(overrides: [
                "reasoning": ["effort": "medium", "summary": "auto"], "include": ["reasoning.encrypted_content"],
            ])
            let events = try await http.postJSON(Self.path, body, bearer: tokens.accessToken).events
            let types = events.map(\.type)
            #expect(types[2] == "response.output_item.added")
            #expect((events[2].data["item"] as? [String: Any])?["type"] as? String == "reasoning")
            #expect(types[3] == "response.reasoning_summary_part.added")
            #expect(types.contains("response.reasoning_summary_text.delta"))
            #expect(types.contains("response.reasoning_summary_text.done"))
            #expect(types.contains("response.reasoning_summary_part.done"))
            let reasoningDone = try #require(events.first { $0.type == "response.output_item.done" }?.data["item"] as? [String: Any])
            #expect((reasoningDone["id"] as? String)?.hasPrefix("rs_") == true)
            #expect((reasoningDone["encrypted_content"] as? String)?.isEmpty == false)
            let usage = (events.last?.data["response"] as? [String: Any])?["usage"] as? [String: Any]
            #expect(((usage?["output_tokens_details"] as? [String: Any])?["reasoning_tokens"] as? Int ?? 0) > 0)
            #expect(types.filter { $0 == "response.output_item.done" }.count == 2)
        }
    }

    @Test("Asking to use an offered tool streams a function_call item, and its output is answered")
    func functionCall() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            let tool: [String: Any] = [
                "type": "function", "name": "get_weather", "description": "Weather", "strict": false,
                "parameters": ["type": "object", "properties": ["city": ["type": "string"]]],
            ]
            let body = EmulatorHTTPClient.responsesBody(#"please use tool get_weather {"city":"Paris"}"#, overrides: ["tools": [tool]])
            let events = try await http.postJSON(Self.path, body, bearer: tokens.accessToken).events
            let types = events.map(\.type)
            #expect(types.contains("response.function_call_arguments.delta"))
            #expect(types.contains("response.function_call_arguments.done"))
            let item = try #require(events.first { $0.type == "response.output_item.done" }?.data["item"] as? [String: Any])
            #expect(item["type"] as? String == "function_call")
            #expect(item["name"] as? String == "get_weather")
            #expect(item["arguments"] as? String == #"{"city":"Paris"}"#)
            let callID = try #require(item["call_id"] as? String)
            #expect(callID.hasPrefix("call_"))
            #expect((item["id"] as? String)?.hasPrefix("fc_") == true)
            // when the tool output comes back
            var followUp = body
            followUp["input"] = (body["input"] as! [Any]) + [
                ["type": "function_call", "name": "get_weather", "arguments": #"{"city":"Paris"}"#, "call_id": callID],
                ["type": "function_call_output", "call_id": callID, "output": "sunny"],
            ]
            let reply = try await http.postJSON(Self.path, followUp, bearer: tokens.accessToken).events
            let text = reply.filter { $0.type == "response.output_text.delta" }.compactMap { $0.data["delta"] as? String }.joined()
            #expect(text == "The tool returned: sunny")
        }
    }

    @Test("A Codex-shaped request without instructions but with a developer message and msg_ ids is accepted")
    func codexShape() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            let body = EmulatorHTTPClient.responsesBody("say hi", overrides: [
                "input": [
                    ["type": "message", "id": "msg_1", "role": "developer", "content": [["type": "input_text", "text": "base prompt"]]],
                    ["type": "message", "id": "msg_2", "role": "user", "content": [["type": "input_text", "text": "say hi"]]],
                    ["type": "reasoning", "id": "rs_old", "summary": [], "encrypted_content": "gAAAA"],
                ],
                "tools": [], "tool_choice": "auto", "parallel_tool_calls": true, "reasoning": ["effort": "medium"],
                "include": ["reasoning.encrypted_content"], "prompt_cache_key": "thread", "text": ["verbosity": "low"],
            ], removing: ["instructions"])
            let answer = try await http.postJSON(Self.path, body, bearer: tokens.accessToken)
            #expect(answer.status == 200)
            #expect(answer.events.last?.type == "response.completed")
        }
    }

    static var rejections: [(String, [String: Any], [String], String)] { [
        ("store missing", [:], ["store"], "Store must be set to false"),
        ("store true", ["store": true], [], "Store must be set to false"),
        ("stream false", ["stream": false], [], "Stream must be set to true"),
        ("stream missing", [:], ["stream"], "Stream must be set to true"),
        ("input string", ["input": "hello"], [], "Input must be a list"),
        ("instructions missing", [:], ["instructions"], "Instructions are required"),
        ("max_output_tokens", ["max_output_tokens": 10], [], "Unsupported parameter: max_output_tokens"),
        ("max_tokens", ["max_tokens": 10], [], "Unsupported parameter: max_tokens"),
        ("prompt_cache_retention", ["prompt_cache_retention": "24h"], [], "Unsupported parameter: prompt_cache_retention"),
        ("messages", ["messages": [["role": "user", "content": "x"]]], [], "Unsupported parameter: messages"),
        (
            "hollow reasoning id", ["input": [["type": "reasoning", "id": "rs_123", "summary": []]]], [],
            "Item with id 'rs_123' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input."
        ),
        (
            "item reference", ["input": [["type": "item_reference", "id": "msg_9"]]], [],
            "Item with id 'msg_9' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input."
        ),
    ] }

    @Test("Each request the real backend rejects gets its 400 detail", arguments: 0..<rejections.count)
    func rejection(index: Int) async throws {
        let (_, overrides, removing, detail) = Self.rejections[index]
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            let body = EmulatorHTTPClient.responsesBody(overrides: overrides, removing: removing)
            let answer = try await http.postJSON(Self.path, body, bearer: tokens.accessToken)
            #expect(answer.status == 400)
            #expect(answer.detail == detail)
        }
    }

    @Test("Malformed JSON and an unknown content encoding are refused with a detail")
    func malformedBody() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            let bad = try await http.send("POST", Self.path, headers: [
                "Authorization": "Bearer \(tokens.accessToken)", "Content-Type": "application/json",
            ], body: Data("{not json".utf8))
            #expect(bad.status == 400 && bad.detail != nil)
            let gzip = try await http.send("POST", Self.path, headers: [
                "Authorization": "Bearer \(tokens.accessToken)", "Content-Encoding": "br",
            ], body: Data("{}".utf8))
            #expect(gzip.status == 415 && gzip.detail != nil)
        }
    }

    @Test("Missing, unknown, expired and revoked bearers get 401 Unauthorized")
    func unauthorized() async throws {
        try await withEmulator { emulator, http in
            let body = EmulatorHTTPClient.responsesBody()
            #expect(try await http.postJSON(Self.path, body).detail == "Unauthorized")
            #expect(try await http.postJSON(Self.path, body, bearer: "a.b.c").status == 401)
            let tokens = await emulator.issueTokens()
            await emulator.expireAccessTokens()
            let expired = try await http.postJSON(Self.path, body, bearer: tokens.accessToken)
            #expect(expired.status == 401 && expired.detail == "Unauthorized")
            #expect(expired.headers["x-error-json"] != nil)
            let fresh = await emulator.issueTokens()
            #expect(try await http.postJSON(Self.path, body, bearer: fresh.accessToken).status == 200)
            await emulator.revokeAllAccessTokens()
            #expect(try await http.postJSON(Self.path, body, bearer: fresh.accessToken).status == 401)
            let shortLived = await emulator.issueTokens(accessTokenLifetime: 0)
            #expect(try await http.postJSON(Self.path, body, bearer: shortLived.accessToken).status == 401)
        }
    }

    @Test("A scripted failure streams response.failed and closes the connection")
    func scriptedFailure() async throws {
        try await withEmulator { emulator, _ in
            let tokens = await emulator.issueTokens()
            await emulator.enqueue(.failed(code: "rate_limit_exceeded", message: "Please try again in 11.054s."))
            let connection = try RawHTTPConnection(port: emulator.port)
            let json = String(decoding: try JSONSerialization.data(withJSONObject: EmulatorHTTPClient.responsesBody()), as: UTF8.self)
            connection.write(
                "POST \(Self.path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(tokens.accessToken)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\n\r\n\(json)"
            )
            let response = try #require(await offPool { connection.readResponse() })
            let events = SSEEvent.parse(response.body)
            #expect(events.map(\.type) == ["response.created", "response.in_progress", "response.failed"])
            let error = (events.last?.data["response"] as? [String: Any])?["error"] as? [String: Any]
            #expect(error?["code"] as? String == "rate_limit_exceeded")
            #expect(response.headers["connection"] == "close")
            #expect(await offPool { connection.isClosedByServer() })
        }
    }

    @Test("A scripted HTTP error is sent verbatim with its headers")
    func scriptedHTTPError() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            let body = #"{"error":{"type":"usage_limit_reached","message":"limit","plan_type":"plus","resets_at":1}}"#
            await emulator.enqueue(.httpError(status: 429, body: body, headers: ["x-codex-active-limit": "codex"]))
            let answer = try await http.postJSON(Self.path, EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken)
            #expect(answer.status == 429)
            #expect(answer.text == body)
            #expect(answer.headers["x-codex-active-limit"] == "codex")
            #expect(await emulator.queuedReplyCount == 0)
        }
    }

    @Test("A scripted disconnect ends the body after N events without the last chunk")
    func scriptedDisconnect() async throws {
        try await withEmulator { emulator, _ in
            let tokens = await emulator.issueTokens()
            await emulator.enqueue(.disconnect(afterEvents: 3))
            let connection = try RawHTTPConnection(port: emulator.port)
            let json = String(decoding: try JSONSerialization.data(withJSONObject: EmulatorHTTPClient.responsesBody()), as: UTF8.self)
            connection.write(
                "POST \(Self.path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(tokens.accessToken)\r\n"
                    + "Content-Length: \(json.utf8.count)\r\n\r\n\(json)"
            )
            // The reader returns nil because the terminating chunk never arrives.
            #expect(await offPool { connection.readResponse() } == nil)
        }
    }

    @Test("An incomplete reply ends with response.incomplete and its reason")
    func scriptedIncomplete() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            await emulator.enqueue(.incomplete(reason: "max_output_tokens"))
            let events = try await http.postJSON(Self.path, EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken).events
            #expect(events.last?.type == "response.incomplete")
            let response = events.last?.data["response"] as? [String: Any]
            #expect((response?["incomplete_details"] as? [String: Any])?["reason"] as? String == "max_output_tokens")
        }
    }

    @Test("Scripted text replaces the default reply")
    func scriptedText() async throws {
        try await withEmulator(.init(deltaCharacters: 2)) { emulator, http in
            let tokens = await emulator.issueTokens()
            await emulator.enqueue(.text("Grüße…"))
            let events = try await http.postJSON(Self.path, EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken).events
            let deltas = events.filter { $0.type == "response.output_text.delta" }.compactMap { $0.data["delta"] as? String }
            #expect(deltas == ["Gr", "üß", "e…"])
        }
    }

    @Test("A zstd-compressed body is decoded")
    func zstdBody() async throws {
        let compressed = try zstdCompress(Data(try JSONSerialization.data(withJSONObject: EmulatorHTTPClient.responsesBody("zipped"))))
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            let answer = try await http.send("POST", Self.path, headers: [
                "Authorization": "Bearer \(tokens.accessToken)", "Content-Type": "application/json", "Content-Encoding": "zstd",
            ], body: compressed)
            #expect(answer.status == 200)
            let text = answer.events.filter { $0.type == "response.output_text.delta" }.compactMap { $0.data["delta"] as? String }.joined()
            #expect(text == ChappieEmulator.defaultReply(for: "zipped"))
            let garbage = try await http.send("POST", Self.path, headers: [
                "Authorization": "Bearer \(tokens.accessToken)", "Content-Encoding": "zstd",
            ], body: Data("not zstd".utf8))
            #expect(garbage.status == 400)
        }
    }
}
