import ChappieEmulator
import ChappieTestSupport
import Foundation
import Testing

@Suite("The Python websockets client exercises the emulator's WebSocket framing (PROTOCOL §6, issue 5)")
struct WebSocketsPythonConformanceTests {
    static let script = ClientAvailability.clientsDirectory.appendingPathComponent("websockets_framing.py").path

    func run(_ emulator: ChappieEmulator, token: String, mode: String? = nil) async throws -> TestProcess.Result {
        let url = "ws://127.0.0.1:\(emulator.port)/backend-api/codex/responses"
        return try await TestProcess.run(ClientAvailability.python, [ClientAvailability.python3, Self.script, url, token] + (mode.map { [$0] } ?? []), timeLimit: .seconds(120))
    }

    @Test(
        "Masked, fragmented, ping, close codes, binary, 16 MiB, prewarm and chaining all behave as documented",
        .enabled(if: ClientAvailability.shouldRun(installed: ClientAvailability.hasWebsocketsPython), "websockets (PyPI) is not installed")
    )
    func framing() async throws {
        try #require(ClientAvailability.hasWebsocketsPython, "websockets (PyPI) is required on CI: pip install -r Tests/ConformanceTests/Clients/requirements.txt")
        try await ChappieEmulator.with { emulator in
            // given
            let tokens = await emulator.issueTokens()
            // when
            let result = try await run(emulator, token: tokens.accessToken)
            // then
            #expect(!result.timedOut)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            let checks = ["prewarm", "chain", "fragmented", "ping", "close 1000", "close 4000", "binary 1003", "too big 1009"]
            #expect(checks.allSatisfy { lines.contains("OK " + $0) }, "stdout: \(result.stdout)")
            #expect(lines.contains("TEXT: " + ChappieEmulator.defaultReply(for: "chained over websockets")))
            #expect(lines.contains("TEXT: " + ChappieEmulator.defaultReply(for: "fragmented over websockets")))
            #expect(!result.stdout.contains(tokens.accessToken) && !result.stderr.contains(tokens.accessToken))
            // and the chained request carried only the new input on top of the prewarm
            let frames = await emulator.recordedRequests().filter { $0.method == "WS" }
            try #require(frames.count == 3)
            let chained = try #require(try JSONSerialization.jsonObject(with: frames[1].body) as? [String: Any])
            #expect((chained["previous_response_id"] as? String)?.hasPrefix("resp_") == true)
            #expect((chained["input"] as? [Any])?.count == 1)
        }
    }

    @Test(
        "Scripted handshake faults reach the client: 426 refused, then 1008 right after accept",
        .enabled(if: ClientAvailability.shouldRun(installed: ClientAvailability.hasWebsocketsPython), "websockets (PyPI) is not installed")
    )
    func handshakeFaults() async throws {
        try #require(ClientAvailability.hasWebsocketsPython, "websockets (PyPI) is required on CI: pip install -r Tests/ConformanceTests/Clients/requirements.txt")
        try await ChappieEmulator.with { emulator in
            let tokens = await emulator.issueTokens()
            await emulator.enqueueWebSocketFault(.refuseHandshake(status: 426))
            let refused = try await run(emulator, token: tokens.accessToken, mode: "refused")
            #expect(refused.stdout.contains("STATUS: 426"), "stderr: \(refused.stderr)")
            await emulator.enqueueWebSocketFault(.policyViolation)
            let closed = try await run(emulator, token: tokens.accessToken, mode: "close-after-accept")
            #expect(closed.stdout.contains("CLOSE: 1008"), "stderr: \(closed.stderr)")
        }
    }
}
