import ChappieSDK
import ChappieSDKTesting
import ChappieTestSupport
import Foundation
import Testing
@testable import ChappieEmulator

/// Codex 0.163.0 as a new user runs it: its built-in OpenAI provider (ChatGPT sign-in, zstd
/// bodies, workspace routing, remote compaction v2), pointed at the emulator's HTTPS front end with
/// `openai_base_url` / `chatgpt_base_url` and no `model_provider`.
@Suite("The real Codex CLI 0.163.0 with its built-in provider against chappie emulator --tls")
struct CodexBuiltInProviderConformanceTests {
    /// How the model traffic goes.
    enum Transport: String, CaseIterable, Sendable {
        case webSocket, http
    }

    /// A throwaway `CODEX_HOME` and working directory for the built-in provider.
    struct Home {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("chappie-codex-builtin-\(UUID().uuidString)")
        var codexHome: URL { root.appendingPathComponent("codex-home") }
        var workspace: URL { root.appendingPathComponent("workspace") }

        init() throws {
            try FileManager.default.createDirectory(at: codexHome, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        }

        func remove() { try? FileManager.default.removeItem(at: root) }

        /// An `auth.json` holding tokens the emulator issued (PROTOCOL §1.3 layout).
        func writeAuth(_ tokens: ChappieEmulator.IssuedTokens, accountID: String) throws {
            let auth: [String: Any] = [
                "auth_mode": "chatgpt", "OPENAI_API_KEY": NSNull(),
                "tokens": [
                    "id_token": tokens.idToken, "access_token": tokens.accessToken, "refresh_token": tokens.refreshToken,
                    "account_id": accountID,
                ],
                "last_refresh": ISO8601DateFormatter().string(from: Date()),
            ]
            try JSONSerialization.data(withJSONObject: auth).write(to: codexHome.appendingPathComponent("auth.json"))
        }

        /// The built-in provider at the TLS front end: no `model_provider`, only base URLs. A low
        /// auto-compaction limit makes the second turn compact first (remote compaction v2).
        func writeConfig(_ tls: ChappieEmulator.TLSEndpoint, autoCompactTokenLimit: Int? = nil) throws {
            var config = """
                model = "gpt-5.5"
                openai_base_url = "\(tls.backendBaseURL.absoluteString)/codex"
                chatgpt_base_url = "\(tls.backendBaseURL.absoluteString)"

                """
            if let autoCompactTokenLimit { config += "model_auto_compact_token_limit = \(autoCompactTokenLimit)\n" }
            config += """

                [features]
                # The login-shell snapshot times out (10 s) in this container and is not under test.
                shell_snapshot = false

                """
            try config.write(to: codexHome.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
        }

        func environment(_ tls: ChappieEmulator.TLSEndpoint) -> [String: String] {
            [
                "CODEX_HOME": codexHome.path,
                "CODEX_CA_CERTIFICATE": tls.certificateAuthorityPath,
                "CODEX_REFRESH_TOKEN_URL_OVERRIDE": tls.baseURL.absoluteString + "/oauth/token",
                "CODEX_REVOKE_TOKEN_URL_OVERRIDE": tls.baseURL.absoluteString + "/oauth/revoke",
                "NO_COLOR": "1",
                "RUST_LOG": ProcessInfo.processInfo.environment["CHAPPIE_CODEX_RUST_LOG"] ?? "error",
            ]
        }
    }

    static let available = ClientAvailability.shouldRun(installed: ClientAvailability.codexBinary != nil && TestCertificates.isAvailable)

    @Test(
        "Device login, exec, and exec resume with remote compaction v2 complete over the built-in provider",
        .enabled(if: available, "openai-codex-cli-bin or openssl is not installed"),
        arguments: Transport.allCases
    )
    func builtInProvider(transport: Transport) async throws {
        let codex = try #require(ClientAvailability.codexBinary, "openai-codex-cli-bin==0.163.0 is required on CI")
        let home = try Home()
        defer { home.remove() }
        let configuration = ChappieEmulator.Configuration(
            pollingIntervalSeconds: 1, autoApproveAfterPolls: nil, acceptsWebSockets: transport == .webSocket)
        try await ChappieEmulator.with(configuration) { emulator in try await Self.withTLS(emulator) { tls in
            let environment = home.environment(tls)

            // given: the user signs in with the device code over HTTPS
            let approver = Task {
                guard let userCode = await emulator.nextDeviceCode() else { return false }
                return await emulator.approve(userCode: userCode)
            }
            let login = try await TestProcess.run(
                codex, ["login", "--device-auth", "--experimental_issuer", tls.baseURL.absoluteString],
                environment: environment, currentDirectory: home.workspace, timeLimit: .seconds(120))
            #expect(await approver.value)
            try #require(login.status == 0, "login failed: \(login.stdout)\n\(login.stderr)")

            // when: a first turn
            try home.writeConfig(tls, autoCompactTokenLimit: 600)
            let first = try await exec(codex, ["exec", "--skip-git-repo-check", "--sandbox", "read-only", "say hi"], home: home,
                                       environment: environment)
            // then
            #expect(first.status == 0, "exec failed: \(first.stderr)")
            #expect(first.stdout.contains(ChappieEmulator.defaultReply(for: "say hi")))
            let afterFirst = await emulator.recordedRequests()
            #expect(afterFirst.contains { $0.path == "/backend-api/wham/accounts/check" }, "workspace routing discovery")
            let model = afterFirst.filter { $0.path == "/backend-api/codex/responses" }
            switch transport {
            case .webSocket:
                #expect(model.contains { $0.method == "GET" })
                #expect(!model.contains { $0.method == "POST" }, "no HTTP fallback")
            case .http:
                let post = try #require(model.first { $0.method == "POST" })
                #expect(post.header("content-encoding") == "zstd", "the built-in provider compresses its bodies")
                #expect(post.header("session-id") != nil && post.header("thread-id") != nil)
            }

            // when: the thread is resumed; its history is over the limit, so Codex compacts first
            let second = try await exec(
                codex, ["exec", "--skip-git-repo-check", "--sandbox", "read-only", "resume", "--last", "say more"], home: home,
                environment: environment)
            // then
            #expect(second.status == 0, "exec resume failed: \(second.stderr)")
            #expect(second.stdout.contains(ChappieEmulator.defaultReply(for: "say more")))
            let later = await emulator.recordedRequests().dropFirst(afterFirst.count)
            let bodies = later.filter { $0.path == "/backend-api/codex/responses" }.compactMap(Self.modelRequest)
            let trigger = bodies.firstIndex { ($0["input"] as? [[String: Any]])?.last?["type"] as? String == "compaction_trigger" }
            let compactIndex = try #require(trigger, "remote compaction v2 was requested")
            let replayed = bodies.dropFirst(compactIndex + 1).compactMap { $0["input"] as? [[String: Any]] }
            #expect(replayed.contains { items in items.contains { $0["type"] as? String == "compaction" } },
                    "later requests carry the compaction item")
            // Over HTTP the emulator refuses the upgrade with 426 (that is how the test picks HTTP), which Codex logs.
            let errors = codexErrorLines(first.stderr + "\n" + second.stderr).filter {
                !(transport == .http && $0.contains("426 Upgrade Required"))
            }
            #expect(errors.isEmpty, "Codex logged errors against the emulator: \(errors)")
        } }
    }

    @Test(
        "The SDK's /responses request and Codex's for the same one-prompt turn differ only where intended",
        .enabled(if: available, "openai-codex-cli-bin or openssl is not installed")
    )
    func differential() async throws {
        let codex = try #require(ClientAvailability.codexBinary, "openai-codex-cli-bin==0.163.0 is required on CI")
        let home = try Home()
        defer { home.remove() }
        // Codex's request, over HTTP (the emulator refuses the WebSocket with 426)
        let codexRequest = try await ChappieEmulator.with(.init(acceptsWebSockets: false)) { emulator in try await Self.withTLS(emulator) { tls in
            try home.writeAuth(await emulator.issueTokens(), accountID: emulator.configuration.account.accountID)
            try home.writeConfig(tls)
            let result = try await exec(codex, ["exec", "--skip-git-repo-check", "--sandbox", "read-only", "one prompt"], home: home,
                                        environment: home.environment(tls))
            try #require(result.status == 0, "exec failed: \(result.stderr)")
            return try #require(await emulator.recordedRequests().last { $0.path == "/backend-api/codex/responses" && $0.method == "POST" })
        } }
        // the SDK's request for the same prompt, over HTTP
        let sdkRequest = try await ChappieTestEmulator.withSignedIn(configure: { configuration in
            configuration.streamingTransportPolicy = ChappieStreamingTransportPolicy(prefersWebSocket: false)
        }) { signedIn in
            _ = try await signedIn.client.send("one prompt")
            return try #require(await signedIn.emulator.recordedRequests().last { $0.path == "/backend-api/codex/responses" })
        }
        if let path = ProcessInfo.processInfo.environment["CHAPPIE_CODEX_REQUEST_LOG"] {
            let lines = codexRequest.headers.filter { $0.name.lowercased() != "authorization" }.map { "\($0.name): \($0.value)" }
            try? lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        let codexBody = try #require(Self.modelRequest(codexRequest))
        let sdkBody = try #require(Self.modelRequest(sdkRequest))

        // Header names: what both send, and the intended differences (docs/PROTOCOL-UPDATES.md).
        let ignoredHeaders: Set<String> = ["host", "content-length", "accept-encoding", "connection", "transfer-encoding"]
        let codexHeaders = Set(codexRequest.headers.map { $0.name.lowercased() }).subtracting(ignoredHeaders)
        let sdkHeaders = Set(sdkRequest.headers.map { $0.name.lowercased() }).subtracting(ignoredHeaders)
        /// Codex only: its turn metadata, window id, beta features, routing hint, the zstd body
        /// (the SDK sends JSON unless compression is turned on), and telemetry headers.
        let codexOnlyHeaders: Set<String> = [
            "x-codex-turn-metadata", "x-codex-window-id", "x-codex-beta-features", "x-codex-routing-hint", "content-encoding", "version",
            "x-codex-installation-id", "traceparent", "tracestate", "x-openai-subagent",
        ]
        let shared: Set<String> = [
            "authorization", "chatgpt-account-id", "originator", "user-agent", "session-id", "thread-id", "x-client-request-id",
            "accept", "content-type",
        ]
        #expect(shared.isSubset(of: codexHeaders), "Codex sends \(codexHeaders.sorted())")
        #expect(shared.isSubset(of: sdkHeaders), "the SDK sends \(sdkHeaders.sorted())")
        #expect(sdkHeaders.subtracting(shared).subtracting(["x-codex-turn-state"]).isEmpty,
                "headers only the SDK sends: \(sdkHeaders.subtracting(shared).sorted())")
        #expect(codexHeaders.subtracting(shared).subtracting(codexOnlyHeaders).isEmpty,
                "headers only Codex sends that are not listed as intended: \(codexHeaders.subtracting(shared).subtracting(codexOnlyHeaders).sorted())")

        // Body fields.
        let sharedFields: Set<String> = [
            "model", "input", "tools", "tool_choice", "parallel_tool_calls", "store", "stream", "include", "prompt_cache_key",
        ]
        /// The SDK sends its harness as `instructions`; Codex 0.163.0 puts its base prompt in a
        /// developer message. Codex adds `reasoning` (the SDK only with a reasoning effort set),
        /// `text` (verbosity) and `client_metadata`.
        let sdkOnlyFields: Set<String> = ["instructions", "reasoning"]
        let codexOnlyFields: Set<String> = ["reasoning", "text", "client_metadata", "instructions", "service_tier"]
        let codexFields = Set(codexBody.keys)
        let sdkFields = Set(sdkBody.keys)
        #expect(sharedFields.isSubset(of: codexFields), "Codex's fields: \(codexFields.sorted())")
        #expect(sharedFields.isSubset(of: sdkFields), "the SDK's fields: \(sdkFields.sorted())")
        #expect(sdkFields.subtracting(sharedFields).subtracting(sdkOnlyFields).isEmpty, "\(sdkFields.subtracting(sharedFields).sorted())")
        #expect(codexFields.subtracting(sharedFields).subtracting(codexOnlyFields).isEmpty, "\(codexFields.subtracting(sharedFields).sorted())")
        for field in ["store", "stream", "tool_choice"] {
            #expect("\(codexBody[field] ?? "nil")" == "\(sdkBody[field] ?? "nil")", "\(field) differs")
        }
        #expect(codexBody["prompt_cache_key"] as? String == codexRequest.header("session-id"))
        #expect(sdkBody["prompt_cache_key"] as? String == sdkRequest.header("session-id"))
    }

    /// Runs `body` with a TLS front end for `emulator`, stopped afterwards.
    static func withTLS<Result: Sendable>(
        _ emulator: ChappieEmulator, _ body: (ChappieEmulator.TLSEndpoint) async throws -> Result
    ) async throws -> Result {
        let tls = try await emulator.startTLS()
        do {
            let result = try await body(tls)
            await tls.shutdown()
            return result
        } catch {
            await tls.shutdown()
            throw error
        }
    }

    /// The JSON of a model request: an HTTP body (zstd decoded when so encoded) or a WebSocket
    /// `response.create` frame.
    static func modelRequest(_ request: ChappieEmulator.RecordedRequest) -> [String: Any]? {
        var body = request.body
        if request.header("content-encoding")?.lowercased() == "zstd" {
            guard case .success(let decoded) = ZstdDecoder.decode(body, maximumBytes: 64 << 20) else { return nil }
            body = decoded
        }
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        if request.method == "WS" { return object["type"] as? String == "response.create" ? object : nil }
        return request.method == "POST" ? object : nil
    }

    private func exec(_ codex: String, _ arguments: [String], home: Home, environment: [String: String]) async throws -> TestProcess.Result {
        let result = try await TestProcess.run(codex, arguments, environment: environment, currentDirectory: home.workspace, timeLimit: .seconds(180))
        #expect(!result.timedOut)
        return result
    }
}
