import ChappieEmulator
import Foundation
import Testing

@Suite("Fault injection and remote compaction (DESIGN §6, PROTOCOL §7.3, §9)")
struct FaultsAndCompactionTests {
    @Test("A usage-limit reply is 429 with the §7.3 body and rate-limit headers at 100 %")
    func usageLimit() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            await emulator.enqueue(.usageLimitReached(resetsInSeconds: 600))
            let answer = try await http.postJSON("/backend-api/codex/responses", EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken)
            #expect(answer.status == 429)
            let error = try #require(answer.json["error"] as? [String: Any])
            #expect(error["type"] as? String == "usage_limit_reached")
            #expect(error["plan_type"] as? String == "plus")
            #expect(error["resets_in_seconds"] as? Int == 600)
            #expect(error["resets_at"] is Int)
            #expect(answer.headers["x-codex-active-limit"] == "codex")
            #expect(answer.headers["x-codex-primary-used-percent"] == "100")
        }
    }

    @Test("A slow reply still delivers every event in order")
    func slowText() async throws {
        try await withEmulator(.init(deltaCharacters: 4)) { emulator, http in
            let tokens = await emulator.issueTokens()
            await emulator.enqueue(.slowText("drip drop", eventInterval: .milliseconds(5)))
            let events = try await http.postJSON("/backend-api/codex/responses", EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken).events
            #expect(events.last?.type == "response.completed")
            #expect(events.filter { $0.type == "response.output_text.delta" }.compactMap { $0.data["delta"] as? String } == ["drip", " dro", "p"])
        }
    }

    @Test("Forcing the primary usage shows in /wham/usage as a reached limit")
    func forcedUsage() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            await emulator.setPrimaryUsedPercent(100)
            let usage = try await http.get("/backend-api/wham/usage", bearer: tokens.accessToken)
            let limit = try #require(usage.json["rate_limit"] as? [String: Any])
            #expect(limit["limit_reached"] as? Bool == true)
            #expect(limit["allowed"] as? Bool == false)
            #expect((usage.json["rate_limit_reached_type"] as? [String: Any])?["type"] as? String == "rate_limit_reached")
        }
    }

    @Test("Compaction keeps user and developer messages and appends a compaction item")
    func compaction() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            let body: [String: Any] = [
                "model": "gpt-5.5",
                "input": [
                    ["type": "message", "role": "developer", "content": [["type": "input_text", "text": "rules"]]],
                    ["type": "message", "role": "user", "content": [["type": "input_text", "text": "question"]]],
                    ["type": "message", "role": "assistant", "content": [["type": "output_text", "text": "answer"]]],
                    ["type": "function_call", "name": "f", "arguments": "{}", "call_id": "call_1"],
                    ["type": "function_call_output", "call_id": "call_1", "output": "ok"],
                ],
            ]
            let answer = try await http.postJSON("/backend-api/codex/responses/compact", body, bearer: tokens.accessToken)
            #expect(answer.status == 200)
            let output = try #require(answer.json["output"] as? [[String: Any]])
            #expect(output.map { $0["role"] as? String ?? $0["type"] as? String } == ["developer", "user", "compaction"])
            #expect((output.last?["encrypted_content"] as? String)?.isEmpty == false)
            #expect((output.last?["id"] as? String)?.hasPrefix("cmp_") == true)
            let bad = try await http.postJSON("/backend-api/codex/responses/compact", ["model": "gpt-5.5", "input": "x"], bearer: tokens.accessToken)
            #expect(bad.status == 400 && bad.detail == "Input must be a list")
            #expect(try await http.postJSON("/backend-api/codex/responses/compact", body).status == 401)
        }
    }

    @Test("When the usage meter reports 100 % used, /responses answers the usage-limit 429 without any queued fault")
    func usageLimitEnforced() async throws {
        try await withEmulator(.init(usagePercentPerResponse: 50)) { emulator, http in
            let tokens = await emulator.issueTokens()
            for _ in 0..<2 {
                let answer = try await http.postJSON("/backend-api/codex/responses", EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken)
                #expect(answer.status == 200)
            }
            let limited = try await http.postJSON("/backend-api/codex/responses", EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken)
            #expect(limited.status == 429)
            let error = try #require(limited.json["error"] as? [String: Any])
            #expect(error["type"] as? String == "usage_limit_reached")
            #expect(error["plan_type"] as? String == "plus")
            #expect((error["resets_in_seconds"] as? Int ?? 0) > 0)
            #expect(limited.headers["x-codex-primary-used-percent"] == "100")
            // and the usage endpoint agrees
            let usage = try await http.get("/backend-api/wham/usage", bearer: tokens.accessToken)
            #expect((usage.json["rate_limit"] as? [String: Any])?["limit_reached"] as? Bool == true)
            // a forced reading below 100 % lets work through again
            await emulator.setPrimaryUsedPercent(99)
            #expect(try await http.postJSON("/backend-api/codex/responses", EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken).status == 200)
        }
    }

    @Test("A /responses request ending in compaction_trigger streams exactly one compaction item with encrypted_content (v2)")
    func compactionV2() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            var body = EmulatorHTTPClient.responsesBody("compact me")
            body["input"] = (body["input"] as? [[String: Any]] ?? []) + [["type": "compaction_trigger"]]
            let answer = try await http.postJSON("/backend-api/codex/responses", body, bearer: tokens.accessToken)
            #expect(answer.status == 200)
            let done = answer.events.filter { $0.type == "response.output_item.done" }.compactMap { $0.data["item"] as? [String: Any] }
            #expect(done.count == 1)
            #expect(done.first?["type"] as? String == "compaction")
            #expect((done.first?["encrypted_content"] as? String)?.isEmpty == false)
            #expect((done.first?["id"] as? String)?.hasPrefix("cmp_") == true, "every output item has an id")
            let added = answer.events.first { $0.type == "response.output_item.added" }?.data["item"] as? [String: Any]
            #expect(added?["id"] as? String == done.first?["id"] as? String)
            #expect(answer.events.last?.type == "response.completed")
            let output = ((answer.events.last?.data["response"] as? [String: Any])?["output"] as? [[String: Any]]) ?? []
            #expect(output.map { $0["type"] as? String } == ["compaction"])
            #expect(answer.events.allSatisfy { $0.type != "response.output_text.delta" })
        }
    }

    @Test("Replies are consumed in FIFO order, then the scripted model takes over")
    func fifo() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            await emulator.enqueue(.text("one"))
            await emulator.enqueue(.text("two"))
            var texts = [String]()
            for _ in 0..<3 {
                let events = try await http.postJSON("/backend-api/codex/responses", EmulatorHTTPClient.responsesBody("three"), bearer: tokens.accessToken).events
                texts.append(events.filter { $0.type == "response.output_text.delta" }.compactMap { $0.data["delta"] as? String }.joined())
            }
            #expect(texts == ["one", "two", ChappieEmulator.defaultReply(for: "three")])
        }
    }
}

@Suite("Plugin MCP endpoint the Codex CLI connects to (PROTOCOL §12)")
struct PluginMCPEndpointTests {
    @Test("initialize, a notification and tools/list follow JSON-RPC 2.0 with no tools")
    func handshake() async throws {
        try await withEmulator { _, http in
            let initialize = try await http.postJSON("/backend-api/ps/mcp", [
                "jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": ["protocolVersion": "2025-06-18", "capabilities": [:], "clientInfo": ["name": "t", "version": "1"]],
            ])
            #expect(initialize.status == 200)
            #expect((initialize.json["result"] as? [String: Any])?["protocolVersion"] as? String == "2025-06-18")
            #expect(initialize.headers["mcp-session-id"] != nil)
            let notification = try await http.postJSON("/backend-api/ps/mcp", ["jsonrpc": "2.0", "method": "notifications/initialized"])
            #expect(notification.status == 202)
            let tools = try await http.postJSON("/backend-api/ps/mcp", ["jsonrpc": "2.0", "id": 1, "method": "tools/list"])
            #expect(((tools.json["result"] as? [String: Any])?["tools"] as? [Any])?.isEmpty == true)
            let unknown = try await http.postJSON("/backend-api/ps/mcp", ["jsonrpc": "2.0", "id": 2, "method": "tools/call"])
            #expect((unknown.json["error"] as? [String: Any])?["code"] as? Int == -32601)
        }
    }
}
