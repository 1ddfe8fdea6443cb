import ChappieEmulator
import ChappieTestSupport
import Foundation
import Testing

@Suite("Third-party clients accept the emulator's Sign in with ChatGPT issuer and public API (SIWC.md §2, §4, §8)")
struct SignInWithChatGPTConformanceTests {
    @Test(
        "PyJWT, as an OIDC relying party, signs in and verifies the ID and access tokens against the published JWKS",
        .enabled(if: ClientAvailability.shouldRun(installed: ClientAvailability.hasPyJWT), "PyJWT[crypto] (PyPI) is not installed")
    )
    func relyingParty() async throws {
        try #require(ClientAvailability.hasPyJWT, "PyJWT[crypto] is required on CI: pip install -r Tests/ConformanceTests/Clients/requirements.txt")
        try await ChappieEmulator.with { emulator in
            // given
            let script = ClientAvailability.clientsDirectory.appendingPathComponent("siwc_oidc_relying_party.py").path
            // when
            let result = try await TestProcess.run(
                ClientAvailability.python, [ClientAvailability.python3, script, emulator.signInWithChatGPTIssuer.absoluteString], timeLimit: .seconds(120)
            )
            // then
            #expect(!result.timedOut)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            for step in ["discovery", "authorize", "exchange", "tokens verified", "tampered refused", "other audience refused",
                         "unsigned refused", "refresh and revocation"] {
                #expect(result.stdout.contains("OK: " + step), "missing step \(step): \(result.stdout)")
            }
            let paths = await emulator.recordedRequests().map(\.path)
            #expect(paths.contains("/.well-known/jwks.json"))
            #expect(await emulator.signInWithChatGPTRegistrationCount == 1)
        }
    }

    @Test(
        "The openai library streams on /v1 with an SIWC token: phase, namespace and additional_tools round trips, refusals, the catalog",
        .enabled(if: ClientAvailability.shouldRun(installed: ClientAvailability.hasOpenAIPython), "openai (PyPI) is not installed")
    )
    func openAILibrary() async throws {
        try #require(ClientAvailability.hasOpenAIPython, "openai (PyPI) is required on CI: pip install -r Tests/ConformanceTests/Clients/requirements.txt")
        try await ChappieEmulator.with { emulator in
            // given
            let tokens = await emulator.issueSignInWithChatGPTTokens()
            let script = ClientAvailability.clientsDirectory.appendingPathComponent("openai_siwc_responses.py").path
            // when
            let result = try await TestProcess.run(
                ClientAvailability.python, [ClientAvailability.python3, script, emulator.publicAPIBaseURL.absoluteString, tokens.accessToken], timeLimit: .seconds(120)
            )
            // then
            #expect(!result.timedOut)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.contains("TEXT: text " + ChappieEmulator.defaultReply(for: "hello plan")))
            #expect(lines.contains(#"CALL: namespace weather get_weather {"city":"Paris"}"#))
            #expect(lines.contains("TEXT: namespace The tool returned: sunny, 21 C"))
            #expect(lines.contains(#"CALL: additional_tools - get_weather {"city":"Oslo"}"#))
            #expect(lines.contains("REFUSED: temperature") && lines.contains("REFUSED: tools[0]"))
            #expect(lines.contains { $0.hasPrefix("MODELS: gpt-5.5") })
            let calls = await emulator.recordedRequests().filter { $0.path == "/v1/responses" }
            #expect(calls.count == 7)
            #expect(calls.allSatisfy { $0.header("Authorization") == "Bearer \(tokens.accessToken)" })
            #expect(await emulator.planUsageResponsesServed(clientID: tokens.clientID) == 5)
        }
    }

    @Test(
        "The Codex CLI as a custom provider on /v1 with an SIWC token completes codex exec, a tool turn included",
        .enabled(if: ClientAvailability.shouldRun(installed: ClientAvailability.codexBinary != nil), "openai-codex-cli-bin is not installed")
    )
    func codexCustomProvider() async throws {
        let codex = try #require(ClientAvailability.codexBinary, "openai-codex-cli-bin==0.163.0 is required on CI")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("chappie-siwc-codex-\(UUID().uuidString)")
        let home = root.appendingPathComponent("codex-home"), workspace = root.appendingPathComponent("workspace")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try await ChappieEmulator.with { emulator in
            // given: the provider block of SIWC.md §8, the token in env_key, no auth.json
            let tokens = await emulator.issueSignInWithChatGPTTokens()
            let config = """
                model = "gpt-5.5"
                model_provider = "siwc"
                chatgpt_base_url = "\(emulator.backendBaseURL.absoluteString)"

                [model_providers.siwc]
                name = "siwc"
                base_url = "\(emulator.publicAPIBaseURL.absoluteString)"
                env_key = "CHAPPIE_SIWC_ACCESS_TOKEN"
                wire_api = "responses"
                requires_openai_auth = false
                supports_websockets = false

                [features]
                shell_snapshot = false

                """
            try config.write(to: home.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
            let environment = [
                "CODEX_HOME": home.path, "CHAPPIE_SIWC_ACCESS_TOKEN": tokens.accessToken, "NO_COLOR": "1", "RUST_LOG": "error",
            ]
            func exec(_ prompt: String) async throws -> TestProcess.Result {
                try await TestProcess.run(
                    codex, ["exec", "--skip-git-repo-check", "--sandbox", "read-only", prompt],
                    environment: environment, currentDirectory: workspace, timeLimit: .seconds(120)
                )
            }
            // when
            let turn = try await exec("say hi")
            let tool = try await exec(#"use tool exec_command {"cmd":"echo siwc-tool-ok","login":false,"yield_time_ms":1000}"#)
            // then
            #expect(!turn.timedOut && !tool.timedOut)
            #expect(turn.status == 0, "exec failed: \(turn.stderr)")
            #expect(turn.stdout.contains(ChappieEmulator.defaultReply(for: "say hi")))
            #expect(tool.status == 0, "tool turn failed: \(tool.stderr)")
            #expect(tool.stdout.contains("siwc-tool-ok"))
            let requests = await emulator.recordedRequests()
            let turns = requests.filter { $0.path == "/v1/responses" }
            #expect(turns.count == 3, "one turn, then a tool turn and its follow-up")
            #expect(turns.allSatisfy { $0.header("Authorization") == "Bearer \(tokens.accessToken)" })
            #expect(!requests.contains { $0.path == "/backend-api/codex/responses" })
            // What Codex sends that SIWC.md's rules refuse (flat tools), accepted for a Codex harness only:
            let body = try #require(try JSONSerialization.jsonObject(with: turns[0].body) as? [String: Any])
            let types = (body["tools"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
            #expect(types.contains("function"))
            #expect(turns[0].header("originator") == "codex_exec")
            #expect(body["store"] as? Bool == false && body["stream"] as? Bool == true)
        }
    }
}
