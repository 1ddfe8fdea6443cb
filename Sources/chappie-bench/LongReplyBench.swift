@_spi(ChappieTesting) import ChappieCore
import Foundation

/// Long streamed replies through the public API (DESIGN §8): `ChappieClient.stream` on replies of
/// 8,000 / 40,000 / 200,000 one-word deltas that a child emulator replays in the backend's recorded
/// SSE format, against the `openai` Python client and `curl -N` on the same bytes. CPU seconds are
/// the client process's own (the emulator runs in another process); the 40k/8k ratio states the
/// growth (linear: about 5).
enum LongReplyBench {
    /// Chappie's figure for a size is the best of this many runs, after one warm-up run.
    static let repetitions = 5

    /// Runs every size in `sizes` and returns one result object per size plus the growth summary.
    ///
    /// `route` picks the backend: the Codex backend for a device-code credential, the public
    /// Responses API (`/v1`) for a Sign in with ChatGPT one; the peers are pointed at the same.
    static func run(sizes: [Int], route: ChappieSignInRoute = .deviceCode) async throws -> [[String: Any]] {
        var results: [[String: Any]] = []
        var cpuBySize: [Int: Double] = [:]
        for deltas in sizes {
            let body = ReplyBody.sse(deltas: deltas)
            let file = FileManager.default.temporaryDirectory.appending(path: "chappie-bench-\(UUID()).sse")
            try body.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let emulator = try EmulatorProcess(replayFile: file)
            defer { emulator.stop() }
            let expectedBytes = ReplyBody.textBytes(deltas: deltas)

            let client = ChappieClient(configuration: try await BenchConfiguration.make(for: emulator, route: route))
            _ = try await stream(client)  // warm-up: the session, the credential, the connection
            var (cpu, wall, textBytes, deltaEvents) = (Double.infinity, Double.infinity, 0, 0)
            for _ in 0..<repetitions {
                let run = try await stream(client)
                (cpu, wall, textBytes, deltaEvents) = (min(cpu, run.cpu), min(wall, run.wall), run.textBytes, run.deltaEvents)
            }
            guard textBytes == expectedBytes else { throw BenchError("chappie streamed \(textBytes) of \(expectedBytes) text bytes") }
            cpuBySize[deltas] = cpu

            let codexURL = emulator.responsesBase(route).absoluteString
            let token = emulator.accessToken(route)
            let python = BenchProcess.runJSON(["python3", BenchScripts.path("openai_stream.py"), codexURL, token, "bench"])
            let curl = BenchProcess.run(["curl", "-sN", "-o", "/dev/null", "-X", "POST", codexURL + "/responses",
                                         "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json",
                                         "--data-binary", BenchConfiguration.minimalRequestBody])
            let pythonCPU = python?["cpu_seconds"] as? Double
            results.append([
                "bench": "long_reply", "route": route.rawValue, "deltas": deltas, "body_bytes": body.count, "text_bytes": textBytes,
                "chappie_delta_events": deltaEvents, "chappie_cpu_seconds": cpu, "chappie_wall_seconds": wall,
                "openai_python_cpu_seconds": pythonCPU as Any, "openai_python_wall_seconds": python?["seconds"] as Any,
                "curl_cpu_seconds": curl?.cpuSeconds as Any,
                "cpu_fraction_of_openai_python": pythonCPU.map { cpu / $0 } as Any,
                "cpu_fraction_of_curl": curl.map { cpu / $0.cpuSeconds } as Any,
            ])
        }
        if let small = sizes.first, let large = sizes.last, small != large, let smallCPU = cpuBySize[small], let largeCPU = cpuBySize[large] {
            results.append(["bench": "long_reply_growth", "route": route.rawValue, "small_deltas": small, "large_deltas": large,
                            "size_ratio": Double(large) / Double(small), "cpu_ratio": largeCPU / smallCPU])
        }
        if sizes.contains(8_000), sizes.contains(40_000), let small = cpuBySize[8_000], let large = cpuBySize[40_000] {
            results.append(["bench": "long_reply_growth_40k_over_8k", "route": route.rawValue, "cpu_ratio": large / small, "target_at_most": 6])
        }
        return results
    }
}

extension LongReplyBench {
    /// One streamed reply through `client.stream`: CPU and wall seconds, text bytes and delta events.
    static func stream(_ client: ChappieClient) async throws -> (cpu: Double, wall: Double, textBytes: Int, deltaEvents: Int) {
        var textBytes = 0
        var deltaEvents = 0
        let cpuStart = CPUClock.now()
        let wallStart = CPUClock.wall()
        for try await event in client.stream("bench") {
            if case .textDelta(let text) = event {
                textBytes += text.utf8.count
                deltaEvents += 1
            }
        }
        return (CPUClock.now() - cpuStart, CPUClock.wall() - wallStart, textBytes, deltaEvents)
    }
}

/// Client set-up shared by the benchmarks: a configuration signed in to an emulator through an
/// in-memory credential store.
enum BenchConfiguration {
    /// A configuration for `emulator`'s endpoints with its tokens saved; HTTP/SSE unless
    /// `transport` says otherwise.
    static func make(for emulator: EmulatorProcess, route: ChappieSignInRoute = .deviceCode,
                     transport: ChappieStreamingTransportPolicy = .httpSSEOnly,
                     accessTokenExpiresIn: TimeInterval? = nil) async throws -> ChappieConfiguration {
        try await make(issuer: emulator.baseURL, backend: emulator.backendBaseURL, tokens: emulator.tokens, route: route,
                       transport: transport, accessTokenExpiresIn: accessTokenExpiresIn)
    }

    /// A configuration for the given endpoints with `tokens` saved in a fresh in-memory store:
    /// the device-code ones, or with `route` `.signInWithChatGPT` the Sign in with ChatGPT ones
    /// (whose requests go to the issuer's `/v1`). Throws ``BenchError`` when those are missing.
    static func make(issuer: URL, backend: URL, tokens: BenchTokens, route: ChappieSignInRoute = .deviceCode,
                     transport: ChappieStreamingTransportPolicy = .httpSSEOnly,
                     accessTokenExpiresIn: TimeInterval? = nil) async throws -> ChappieConfiguration {
        let store = ChappieInMemoryCredentialStore()
        let configuration = ChappieConfiguration(keychainAccount: "bench-\(UUID())", harness: .none, streamingTransportPolicy: transport,
                                                 endpoints: ChappieEndpoints(authIssuer: issuer, backend: backend), credentialStore: store)
        let credential: ChappieCredential
        switch route {
        case .deviceCode:
            credential = ChappieCredential(idToken: tokens.idToken, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
                                           expiresIn: accessTokenExpiresIn ?? TimeInterval(tokens.expiresIn), obtainedAt: Date())
        case .signInWithChatGPT:
            guard let siwc = tokens.signInWithChatGPT else { throw BenchError("the emulator issued no Sign in with ChatGPT tokens") }
            credential = ChappieCredential(idToken: siwc.idToken, accessToken: siwc.accessToken, refreshToken: siwc.refreshToken,
                                           expiresIn: accessTokenExpiresIn ?? TimeInterval(tokens.expiresIn), obtainedAt: Date(),
                                           route: .signInWithChatGPT, clientID: siwc.clientID, grantedScopes: siwc.scopes)
        }
        try await store.saveCredential(credential, for: configuration.credentialKey)
        return configuration
    }

    /// The smallest valid `/responses` body, for curl.
    static let minimalRequestBody =
        #"{"model":"gpt-5.5","instructions":"bench","store":false,"stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"bench"}]}]}"#
}

/// Paths of the peer scripts in `Benchmarks/`.
enum BenchScripts {
    /// The absolute path of `Benchmarks/<name>`.
    static func path(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Benchmarks/\(name)").path
    }
}
