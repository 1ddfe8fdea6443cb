import ChappieEmulator
import ChappieTestSupport
import Foundation
import Testing

@Suite("The openai Python library accepts the emulator's Responses stream (PROTOCOL §12)")
struct OpenAIPythonConformanceTests {
    @Test(
        "Every streamed event parses into its typed class and validates strictly",
        .enabled(if: ClientAvailability.shouldRun(installed: ClientAvailability.hasOpenAIPython), "openai (PyPI) is not installed")
    )
    func typedEvents() async throws {
        try #require(ClientAvailability.hasOpenAIPython, "openai (PyPI) is required on CI: pip install -r Tests/ConformanceTests/Clients/requirements.txt")
        try await ChappieEmulator.with { emulator in
            // given
            let tokens = await emulator.issueTokens()
            let script = ClientAvailability.clientsDirectory.appendingPathComponent("openai_responses_stream.py").path
            // when
            let result = try await TestProcess.run(
                ClientAvailability.python,
                [ClientAvailability.python3, script, emulator.backendBaseURL.absoluteString + "/codex", tokens.accessToken],
                timeLimit: .seconds(120)
            )
            // then
            #expect(!result.timedOut)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.contains("TEXT: " + ChappieEmulator.defaultReply(for: "hello conformance")))
            #expect(lines.contains("TEXT: " + ChappieEmulator.defaultReply(for: "think first")))
            #expect(lines.contains(#"CALL: get_weather {"city":"Paris"}"#))
            let calls = await emulator.recordedRequests().filter { $0.path == "/backend-api/codex/responses" }
            #expect(calls.count == 3)
            #expect(calls.allSatisfy { $0.header("Authorization") == "Bearer \(tokens.accessToken)" })
        }
    }
}
