import ChappieSDK
import ChappieSDKTesting
import Testing

/// Records what a host tool was called with.
private actor Calls {
    private(set) var arguments: [ChappieJSONValue?] = []
    func record(_ call: ChappieToolCall) { arguments.append(call.argumentsJSON) }
}

private func weatherTool(_ calls: Calls, policy: ChappieToolPolicy = .automatic) -> ChappieHostTool {
    ChappieHostTool(name: "get_weather", description: "Current weather for a city",
                    inputSchema: ["type": "object", "properties": ["city": ["type": "string"]], "required": ["city"]],
                    policy: policy) { call in
        await calls.record(call)
        return ChappieToolResult(output: #"{"city":"Paris","celsius":21}"#)
    }
}

/// What the stream's consumer has dealt with, read by the approval handler.
private actor Screen {
    private(set) var shown: [String] = []
    private(set) var shownWhenAsked: [String]?
    func show(_ what: String) { shown.append(what) }
    func asked() { shownWhenAsked = shown }
}

/// Host tools as an app sees them, with the model's tool calls scripted.
@Suite("App tests: host tools")
struct ToolAppTests {
    @Test("a scripted tool call runs the app's handler and the model answers after it")
    func toolRuns() async throws {
        let calls = Calls()
        try await ChappieTestEmulator.withSignedIn(tools: [weatherTool(calls)]) { app in
            // given
            await app.emulator.scriptToolCall("get_weather", arguments: ["city": "Paris"])
            await app.emulator.scriptReplies(.text("It is 21 °C in Paris."))
            // when
            var statuses: [ChappieToolExecutionStatus] = []
            var answer = ""
            for try await event in app.client.stream("What's the weather in Paris?") {
                if case .toolCallCompleted(let result) = event { statuses.append(result.status) }
                if case .completed(let response) = event { answer = response.outputText }
            }
            // then
            #expect(await calls.arguments == [["city": "Paris"]])
            #expect(statuses == [.completed])
            #expect(answer == "It is 21 °C in Paris.")
        }
    }

    @Test("an .ask tool denied by the approval handler never runs")
    func askDenied() async throws {
        let calls = Calls()
        try await ChappieTestEmulator.withSignedIn(
            tools: [weatherTool(calls, policy: .ask)],
            toolApprovalHandler: { _ in .denied(reason: "not now") }
        ) { app in
            await app.emulator.scriptReplies(.functionCall(name: "get_weather", arguments: #"{"city":"Oslo"}"#), .text("Okay, I won't."))
            var sawApproval = false
            var statuses: [ChappieToolExecutionStatus] = []
            for try await event in app.client.stream("Weather in Oslo?") {
                if case .approvalRequested = event { sawApproval = true }
                if case .toolCallCompleted(let result) = event { statuses.append(result.status) }
            }
            #expect(sawApproval)
            #expect(statuses == [.denied])
            #expect(await calls.arguments.isEmpty)
        }
    }

    @Test("the approval handler is asked only after the stream's consumer has dealt with the tool call and its approval request")
    func approvalAfterTheConsumer() async throws {
        let calls = Calls()
        let screen = Screen()
        try await ChappieTestEmulator.withSignedIn(
            tools: [weatherTool(calls, policy: .ask)],
            toolApprovalHandler: { _ in
                await screen.asked()
                return .approved()
            }
        ) { app in
            await app.emulator.scriptReplies(.functionCall(name: "get_weather", arguments: #"{"city":"Oslo"}"#), .text("Sunny."))
            for try await event in app.client.stream("Weather in Oslo?") {
                // The app takes its time to put each event on screen.
                for _ in 0..<50 { await Task.yield() }
                if case .toolCallRequested = event { await screen.show("tool call") }
                if case .approvalRequested = event { await screen.show("approval") }
            }
            #expect(await screen.shownWhenAsked == ["tool call", "approval"])
            #expect(await calls.arguments == [["city": "Oslo"]])
        }
    }
}
