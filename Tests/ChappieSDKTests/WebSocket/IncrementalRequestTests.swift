import ChappieEmulator
@testable import ChappieCore
import ChappieSDKTesting
@testable import ChappieTransport
import Foundation
import Testing

private func body(_ input: [ChappieJSONValue], model: String = "gpt-5.5") -> ChappieJSONValue {
    ["model": .string(model), "instructions": "be brief", "input": .array(input), "tools": [], "store": false, "stream": true,
     "prompt_cache_key": "thread-1"]
}

private let user1: ChappieJSONValue = ["type": "message", "role": "user", "content": [["type": "input_text", "text": "one"]]]
private let reply1: ChappieJSONValue = ["type": "message", "role": "assistant", "content": [["type": "output_text", "text": "uno"]]]
private let user2: ChappieJSONValue = ["type": "message", "role": "user", "content": [["type": "input_text", "text": "two"]]]

private func frame(_ text: String) throws -> ChappieJSONValue { try ChappieJSONValue(jsonData: Data(text.utf8)) }

@Suite("Incremental WebSocket requests")
struct IncrementalRequestTests {
    private let memory = IncrementalRequest.memory(of: body([user1]), responseID: "resp_1", outputItems: [reply1])!

    @Test("a request that extends the previous one sends only the new items with previous_response_id")
    func extends() throws {
        let (text, incremental) = IncrementalRequest.frame(for: body([user1, reply1, user2]), after: memory, turnState: nil)
        let sent = try frame(text)
        #expect(incremental)
        #expect(sent["previous_response_id"] == "resp_1")
        #expect(sent["input"] == [user2])
        #expect(sent["type"] == "response.create")
        #expect(sent["stream"] == nil)
    }

    @Test("anything else sends the full request", arguments: [
        body([user1, reply1, user2], model: "gpt-5.4"),  // another field changed
        body([user2]),  // history rewritten (compaction, a cleared context)
        body([user1, user2]),  // the reply is missing
    ])
    func full(_ request: ChappieJSONValue) throws {
        let (text, incremental) = IncrementalRequest.frame(for: request, after: memory, turnState: nil)
        #expect(!incremental)
        #expect(try frame(text)["previous_response_id"] == nil)
        #expect(try frame(text)["input"] == request["input"])
    }

    @Test("a prewarm has no input and asks for no output; the first turn then goes out on top of it")
    func prewarm() throws {
        let (warm, _) = IncrementalRequest.frame(for: body([]), after: nil, turnState: nil, generate: false)
        #expect(try frame(warm)["generate"] == false)
        let warmed = IncrementalRequest.memory(of: body([]), responseID: "resp_warm", outputItems: [])
        let (first, incremental) = IncrementalRequest.frame(for: body([user1]), after: warmed, turnState: nil)
        #expect(incremental)
        #expect(try frame(first)["previous_response_id"] == "resp_warm")
        #expect(try frame(first)["input"] == [user1])
    }

    @Test("the turn state rides in client_metadata")
    func turnStateInMetadata() throws {
        let (text, _) = IncrementalRequest.frame(for: body([user1]), after: nil, turnState: "ts_1")
        #expect(try frame(text)["client_metadata"]?["x-codex-turn-state"] == "ts_1")
    }

    @Test("the first turn state of a turn wins")
    func firstTurnStateWins() {
        let state = TurnState()
        state.record(nil)
        state.record("ts_first")
        state.record("ts_second")
        #expect(state.value == "ts_first")
    }
}

@Suite("Turn state over HTTP")
struct TurnStateHTTPTests {
    @Test("the server's x-codex-turn-state goes back with the tool follow-up of the same turn, and not with the next turn")
    func stickyWithinTurn() async throws {
        let tool = ChappieHostTool(name: "lookup", description: "Looks up", inputSchema: ["type": "object"], policy: .automatic) { _ in
            ChappieToolResult(output: "found")
        }
        try await withSignedInClient(tools: [tool]) { emulator, client, _ in
            await emulator.scriptToolCall("lookup")
            _ = try await client.send("look it up")
            _ = try await client.send("and now?")
            let requests = await responseRequests(emulator)
            #expect(requests.count == 3)
            #expect(requests[0].header("x-codex-turn-state") == nil)
            let followUp = try #require(requests[1].header("x-codex-turn-state"))
            #expect(followUp.hasPrefix("ts_"))
            #expect(requests[2].header("x-codex-turn-state") == nil)
        }
    }
}

@Suite("zstd request bodies")
struct RequestCompressionTests {
    @Test("with compression on, the /responses body goes out zstd-compressed and the emulator reads it")
    func compressed() async throws {
        guard ZstdCompression.isAvailable else { return }
        try await ChappieTestEmulator.with { emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            var configuration = configuration
            configuration.streamingTransportPolicy = .httpSSEOnly
            let client = ChappieClient(configuration: configuration, transport: HTTPTransports.platformDefault(),
                                       timeSource: ChappieVirtualTime().timeSource, compressesRequests: true)
            let reply = try await client.send(String(repeating: "a long prompt that compresses well ", count: 60))
            #expect(reply.contains("a long prompt"))
            let request = try #require(await responseRequests(emulator).last)
            #expect(request.header("Content-Encoding") == "zstd")
            #expect(request.body.count < 1_000)
        }
    }
}

@Suite("Responses socket reuse")
struct ResponsesSocketReuseTests {
    private struct Dummy: WebSocketConnection {
        func send(text: String) async throws {}
        func receive() async throws -> WebSocketMessage { throw CancellationError() }
        func close(code: Int) {}
    }

    @Test("a socket is reused only for the same account, without a sign-out since, and under 55 minutes old")
    func usable() {
        let opened = Date(timeIntervalSince1970: 1_800_000_000)
        let socket = ResponsesSocket.Open(connection: Dummy(), accountID: "acct-1", signOutMark: 3, openedAt: opened, memory: nil)
        #expect(socket.isUsable(accountID: "acct-1", signOutMark: 3, now: opened.addingTimeInterval(54 * 60)))
        #expect(!socket.isUsable(accountID: "acct-1", signOutMark: 3, now: opened.addingTimeInterval(56 * 60)), "rotated before the 60-minute limit")
        #expect(!socket.isUsable(accountID: "acct-2", signOutMark: 3, now: opened), "another account")
        #expect(!socket.isUsable(accountID: "acct-1", signOutMark: 4, now: opened), "signed out since")
    }
}
