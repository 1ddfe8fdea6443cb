import ChappieEmulator
import ChappieSDKTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ChappieCore

/// A tool that records its calls and answers with a fixed output.
private actor CallLog {
    var calls: [ChappieToolCall] = []
    func record(_ call: ChappieToolCall) { calls.append(call) }
}

private func inventoryTool(_ log: CallLog, policy: ChappieToolPolicy = .automatic) -> ChappieHostTool {
    ChappieHostTool(name: "lookup_stock", description: "Looks up stock for a SKU",
                    inputSchema: ["type": "object", "properties": ["sku": ["type": "string"]], "required": ["sku"]],
                    policy: policy) { call in
        await log.record(call)
        return ChappieToolResult(output: #"{"sku":"A1","in_stock":7}"#)
    }
}

private func events(_ stream: AsyncThrowingStream<ChappieStreamEvent, any Error>) async throws -> [ChappieStreamEvent] {
    var events: [ChappieStreamEvent] = []
    for try await event in stream { events.append(event) }
    return events
}

private func statuses(_ events: [ChappieStreamEvent]) -> [ChappieToolExecutionStatus] {
    events.compactMap { event -> ChappieToolExecutionStatus? in
        if case .toolCallCompleted(let result) = event { return result.status }
        return nil
    }
}

@Suite("Host tool loop")
struct ToolLoopTests {
    @Test("an automatic tool runs, its output goes back with the call, and the model answers with it")
    func automaticRoundTrip() async throws {
        let log = CallLog()
        try await withSignedInClient(tools: [inventoryTool(log)]) { emulator, client, _ in
            await emulator.enqueue(.functionCall(name: "lookup_stock", arguments: #"{"sku":"A1"}"#))
            let collected = try await events(client.stream("how many A1?"))
            let requested = collected.compactMap { if case .toolCallRequested(let r) = $0 { r } else { nil } }
            let completed = collected.compactMap { if case .toolCallCompleted(let r) = $0 { r } else { nil } }
            #expect(requested.map(\.policy) == [.automatic])
            #expect(completed.map(\.status) == [.completed])
            #expect(await log.calls.first?.argumentsJSON == ["sku": "A1"])
            guard case .completed(let response) = collected.last else { Issue.record("no completion"); return }
            #expect(response.outputText.contains("in_stock"))
            // The follow-up request replays the call and its output, paired, without ids.
            let requests = await responseRequests(emulator)
            #expect(requests.count == 2)
            let input = try #require(try json(requests[1])["input"]?.arrayValue)
            let call = try #require(input.first { $0["type"] == "function_call" })
            let output = try #require(input.first { $0["type"] == "function_call_output" })
            #expect(call["call_id"] == output["call_id"])
            #expect(call["name"] == "lookup_stock")
            #expect(output["output"] == #"{"sku":"A1","in_stock":7}"#)
            #expect(input.allSatisfy { $0["id"] == nil })
            let tools = try #require(try json(requests[0])["tools"]?.arrayValue)
            #expect(tools.first?["type"] == "function")
            #expect(tools.first?["parameters"]?["required"] == ["sku"])
            let transcript = await client.context().transcript
            #expect(transcript.count == 4)
            guard case .functionCall = transcript[1], case .functionCallOutput = transcript[2] else {
                Issue.record("transcript is not user, call, output, answer: \(transcript)"); return
            }
        }
    }

    @Test("the scripted model calls a tool when the user names it")
    func triggerByName() async throws {
        let log = CallLog()
        try await withSignedInClient(tools: [inventoryTool(log)]) { _, client, _ in
            let reply = try await client.send(#"use tool lookup_stock {"sku":"B2"}"#)
            #expect(await log.calls.first?.argumentsJSON == ["sku": "B2"])
            #expect(reply.contains("in_stock"))
        }
    }

    @Test("parallel calls in one response all run and are all answered, keyed by call id, before the next request")
    func parallelCalls() async throws {
        let log = CallLog()
        try await withSignedInClient(tools: [inventoryTool(log)]) { emulator, client, _ in
            let reply = try await client.send(#"use tool lookup_stock {"sku":"A1"} and use tool lookup_stock {"sku":"C3"}"#)
            #expect(await log.calls.count == 2)
            #expect(Set(await log.calls.compactMap { $0.argumentsJSON?["sku"]?.stringValue }) == ["A1", "C3"])
            #expect(reply.contains("; "))
            let requests = await responseRequests(emulator)
            #expect(requests.count == 2)
            let input = try #require(try json(requests[1])["input"]?.arrayValue)
            let calls = input.filter { $0["type"] == "function_call" }.compactMap { $0["call_id"]?.stringValue }
            let outputs = input.filter { $0["type"] == "function_call_output" }.compactMap { $0["call_id"]?.stringValue }
            #expect(calls.count == 2)
            #expect(outputs == calls)
            #expect(Set(calls).count == 2)
        }
    }

    @Test("an ask tool waits for approval; approved runs, denied tells the model", arguments: [true, false])
    func askPolicy(approve: Bool) async throws {
        let log = CallLog()
        let approvals = CallLog()
        let approval: ChappieToolApprovalHandler = { request in
            await approvals.record(request.call)
            return approve ? .approved() : .denied(reason: "not now")
        }
        try await withSignedInClient(tools: [inventoryTool(log, policy: .ask)], approval: approval) { emulator, client, _ in
            await emulator.enqueue(.functionCall(name: "lookup_stock", arguments: #"{"sku":"A1"}"#))
            let collected = try await events(client.stream("check A1"))
            #expect(collected.contains { if case .approvalRequested = $0 { true } else { false } })
            #expect(await approvals.calls.count == 1)
            #expect(await log.calls.count == (approve ? 1 : 0))
            #expect(statuses(collected) == [approve ? .completed : .denied])
            if !approve {
                let input = try #require(try json(await responseRequests(emulator)[1])["input"]?.arrayValue)
                let output = try #require(input.first { $0["type"] == "function_call_output" }?["output"]?.stringValue)
                #expect(output.contains("not now"))
            }
        }
    }

    @Test("denial can be configured to stop the turn with toolApprovalDenied")
    func denialStops() async throws {
        let log = CallLog()
        try await withSignedInClient(configure: { $0.stopsOnToolDenial = true }, tools: [inventoryTool(log, policy: .ask)],
                                     approval: { _ in .denied(reason: "no") }) { emulator, client, _ in
            await emulator.enqueue(.functionCall(name: "lookup_stock", arguments: "{}"))
            await #expect(throws: ChappieClientError.toolApprovalDenied("lookup_stock", "no")) { try await client.send("x") }
        }
    }

    @Test("a deny tool never runs and the model is told")
    func denyPolicy() async throws {
        let log = CallLog()
        try await withSignedInClient(tools: [inventoryTool(log, policy: .deny)]) { emulator, client, _ in
            await emulator.enqueue(.functionCall(name: "lookup_stock", arguments: "{}"))
            _ = try await client.send("x")
            #expect(await log.calls.isEmpty)
        }
    }

    @Test("malformed argument JSON reaches the handler as a failed parse and the model gets a failed result")
    func malformedArguments() async throws {
        let log = CallLog()
        try await withSignedInClient(tools: [inventoryTool(log)]) { emulator, client, _ in
            await emulator.enqueue(.functionCall(name: "lookup_stock", arguments: #"{"sku": "A1""#))
            let collected = try await events(client.stream("x"))
            let call = try #require(await log.calls.first)
            #expect(call.argumentsJSON == nil)
            #expect(call.argumentsParseError != nil)
            #expect(call.rawArguments == #"{"sku": "A1""#)
            #expect(statuses(collected) == [.failed])
        }
    }

    @Test("a tool declared in the harness without a handler is missingToolHandler")
    func missingHandler() async throws {
        let harness = ChappieHarness(name: "t", summary: "s", capabilities: [],
                                     tools: [ChappieHarnessTool(name: "ghost", description: "declared only", inputSchema: ["type": "object"])])
        try await withSignedInClient(configure: { $0.harness = harness }) { emulator, client, _ in
            await emulator.enqueue(.functionCall(name: "ghost", arguments: "{}"))
            await #expect(throws: ChappieClientError.missingToolHandler("ghost")) { try await client.send("x") }
        }
    }

    @Test("more rounds than the limit is toolLoopLimitExceeded")
    func loopLimit() async throws {
        let log = CallLog()
        try await withSignedInClient(configure: { $0.maximumToolRounds = 2 }, tools: [inventoryTool(log)]) { emulator, client, _ in
            for _ in 0..<3 { await emulator.enqueue(.functionCall(name: "lookup_stock", arguments: "{}")) }
            await #expect(throws: ChappieClientError.toolLoopLimitExceeded(2)) { try await client.send("loop") }
            #expect(await log.calls.count == 2)
        }
    }

    @Test("a handler that throws gives the model a failed result, not a crash")
    func throwingHandler() async throws {
        struct Broken: Error {}
        let tool = ChappieHostTool(name: "broken", description: "fails") { _ in throw Broken() }
        try await withSignedInClient(tools: [tool]) { emulator, client, _ in
            await emulator.enqueue(.functionCall(name: "broken", arguments: "{}"))
            let collected = try await events(client.stream("x"))
            #expect(statuses(collected) == [.failed])
        }
    }
}

@Suite("Tool executor")
struct ToolExecutorTests {
    @Test("parallel calls all run and their results come back in call order, keyed by call id")
    func parallel() async throws {
        let gate = AsyncStream<Void>.makeStream()
        let slow = ChappieHostTool(name: "slow", description: "waits") { call in
            for await _ in gate.stream { break }
            return ChappieToolResult(output: "slow:\(call.callID)")
        }
        let fast = ChappieHostTool(name: "fast", description: "returns") { call in
            gate.continuation.yield()
            return ChappieToolResult(output: "fast:\(call.callID)")
        }
        let executor = ToolExecutor(tools: ["slow": slow, "fast": fast], declaredNames: [], approvalHandler: nil,
                                    stopsOnDenial: false, time: ChappieVirtualTime().timeSource)
        let results = try await executor.execute([ChappieFunctionCall(callID: "call_1", name: "slow", arguments: "{}"),
                                                  ChappieFunctionCall(callID: "call_2", name: "fast", arguments: "{}")], emit: { _ in })
        #expect(results.map(\.output) == ["slow:call_1", "fast:call_2"])
    }

    @Test("cancelling during a handler marks the call cancelled and stops the turn")
    func cancellation() async throws {
        let entered = AsyncStream<Void>.makeStream()
        let hanging = ChappieHostTool(name: "hang", description: "never returns") { _ in
            entered.continuation.yield()
            try await Task.sleep(for: .seconds(3600))
            return ChappieToolResult(output: "late")
        }
        let statuses = CallLog()
        let executor = ToolExecutor(tools: ["hang": hanging], declaredNames: [], approvalHandler: nil, stopsOnDenial: false,
                                    time: ChappieVirtualTime().timeSource)
        let task = Task {
            try await executor.execute([ChappieFunctionCall(callID: "call_h", name: "hang", arguments: "{}")]) { event in
                if case .toolCallCompleted(let result) = event {
                    Task { await statuses.record(ChappieToolCall(name: result.status.rawValue, callID: "", rawArguments: "")) }
                }
            }
        }
        for await _ in entered.stream { break }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("an unknown tool the harness never declared gets a failed result")
    func unknownTool() async throws {
        let executor = ToolExecutor(tools: [:], declaredNames: [], approvalHandler: nil, stopsOnDenial: false,
                                    time: ChappieVirtualTime().timeSource)
        let results = try await executor.execute([ChappieFunctionCall(callID: "c", name: "nope", arguments: "{}")], emit: { _ in })
        #expect(results.first?.status == .failed)
    }
}

@Suite("Tool history replay")
struct ToolHistoryTests {
    @Test("the emulator, like the real server, rejects an output whose call is missing")
    func emulatorRejectsOrphan() async throws {
        try await withSignedInClient { emulator, _, configuration in
            _ = configuration
            let body: ChappieJSONValue = ["model": "gpt-5.5", "instructions": "x", "store": false, "stream": true,
                                          "input": [["type": "function_call_output", "call_id": "call_lost", "output": "{}"]]]
            let tokens = await emulator.issueTokens()
            var request = URLRequest(url: emulator.backendBaseURL.appending(path: "codex/responses"))
            request.httpMethod = "POST"
            request.httpBody = Data(body.jsonString.utf8)
            request.setValue("Bearer \(tokens.accessToken)", forHTTPHeaderField: "Authorization")
            let (data, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 400)
            #expect(String(decoding: data, as: UTF8.self).contains("No tool call found for function call output with call_id call_lost."))
        }
    }

    @Test("a saved history is replayed with calls and outputs paired: orphan outputs dropped, orphan calls answered")
    func pairing() async throws {
        try await withSignedInClient { emulator, client, _ in
            let saved = ChappieClientContext(
                sessionID: "s", threadID: UUID().uuidString, model: "gpt-5.5",
                transcript: [.message(.user("hi")),
                             .functionCall(ChappieFunctionCall(callID: "call_1", name: "a", arguments: "{}")),
                             .functionCall(ChappieFunctionCall(callID: "call_2", name: "b", arguments: "{}")),
                             .functionCallOutput(callID: "call_2", output: "two"),
                             .functionCallOutput(callID: "call_9", output: "stray"),
                             .reasoning(["type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"])],
                compactedSummary: nil, createdAt: Date(), updatedAt: Date())
            await client.resumeContext(saved)
            _ = try await client.send("next")
            let input = try await lastInput(emulator)
            let outputs = input.filter { $0["type"] == "function_call_output" }.compactMap { $0["call_id"]?.stringValue }
            #expect(outputs == ["call_1", "call_2"])
            let reasoning = try #require(input.first { $0["type"] == "reasoning" })
            #expect(reasoning["id"] == nil)
            #expect(reasoning["encrypted_content"] == "enc")
        }
    }
}
