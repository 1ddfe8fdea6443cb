@_spi(ChappieTesting) import ChappieCore
import ChappieEmulator
import Foundation

/// What a user feels besides long replies (DESIGN §8): time to the first delta against curl's
/// first byte and first delta line, connections a conversation opens, and peak memory while a slow
/// consumer reads a 100 MB reply.
enum PipelineBench {
    /// Median seconds from `client.stream` to the first text delta over `turns` turns on one warm
    /// client, against curl's time to the first byte and to the first delta line of the same call.
    /// `route` picks the backend (see ``LongReplyBench/run(sizes:route:)``).
    static func firstDelta(turns: Int, route: ChappieSignInRoute = .deviceCode) async throws -> [String: Any] {
        let emulator = try EmulatorProcess()
        defer { emulator.stop() }
        let client = ChappieClient(configuration: try await BenchConfiguration.make(for: emulator, route: route))
        _ = try await client.send("warm up")
        var samples: [Double] = []
        for turn in 0..<turns {
            let start = CPUClock.wall()
            for try await event in client.stream("first delta \(turn)") {
                if case .textDelta = event, samples.count == turn { samples.append(CPUClock.wall() - start) }
            }
        }
        let codexURL = emulator.responsesBase(route).appending(path: "responses").absoluteString
        var curlFirstByte: [Double] = []
        var curlFirstDelta: [Double] = []
        for _ in 0..<turns {
            let start = CPUClock.wall()
            guard let curl = try? BenchProcess(["curl", "-sN", "-X", "POST", codexURL, "-H", "Authorization: Bearer \(emulator.accessToken(route))",
                                                "-H", "Content-Type: application/json", "--data-binary", BenchConfiguration.minimalRequestBody,
                                                "-o", "-", "-w", "\ntime_starttransfer=%{time_starttransfer}\n"]) else { break }
            curl.closeInput()
            while let line = curl.readLine() {
                if line.contains("response.output_text.delta"), curlFirstDelta.count < curlFirstByte.count + 1 {
                    curlFirstDelta.append(CPUClock.wall() - start)
                }
                if line.hasPrefix("time_starttransfer="), let seconds = Double(line.dropFirst("time_starttransfer=".count)) {
                    curlFirstByte.append(seconds)
                }
            }
            _ = curl.wait()
        }
        let chappie = median(samples)
        return ["bench": "first_delta", "route": route.rawValue, "turns": turns, "chappie_median_seconds": chappie as Any,
                "curl_first_byte_median_seconds": median(curlFirstByte) as Any,
                "curl_first_delta_line_median_seconds": median(curlFirstDelta) as Any,
                "ratio_to_curl_first_delta_line": median(curlFirstDelta).flatMap { curl in chappie.map { $0 / curl } } as Any]
    }

    /// Connections the emulator accepted for a `turns`-turn conversation over HTTP/SSE.
    static func connectionsPerConversation(turns: Int, route: ChappieSignInRoute = .deviceCode) async throws -> [String: Any] {
        let emulator = try await ChappieEmulator.start(.init(usagePercentPerResponse: 0))
        let issued = await emulator.issueTokens()
        var tokens = BenchTokens(idToken: issued.idToken, accessToken: issued.accessToken, refreshToken: issued.refreshToken,
                                 expiresIn: issued.expiresIn)
        if route == .signInWithChatGPT {
            let siwc = await emulator.issueSignInWithChatGPTTokens(planUsage: true)
            tokens.signInWithChatGPT = BenchTokens.SignInWithChatGPT(idToken: siwc.idToken, accessToken: siwc.accessToken,
                                                                      refreshToken: siwc.refreshToken, clientID: siwc.clientID,
                                                                      scopes: siwc.scope.split(separator: " ").map(String.init))
        }
        let client = ChappieClient(configuration: try await BenchConfiguration.make(issuer: emulator.baseURL, backend: emulator.backendBaseURL,
                                                                                     tokens: tokens, route: route))
        let before = emulator.connectionsAccepted
        for turn in 0..<turns { _ = try await client.send("turn \(turn)") }
        let connections = emulator.connectionsAccepted - before
        await emulator.shutdown()
        return ["bench": "connections_per_conversation", "route": route.rawValue, "turns": turns, "connections": connections, "target_at_most": 2]
    }

    /// Peak resident memory of a fresh process (this benchmark run again as
    /// `chappie-bench slow-consumer`) while it reads a reply of about `megabytes` MB slowly.
    static func slowConsumer(megabytes: Int) throws -> [String: Any] {
        let deltas = megabytes * 1_000_000 / 190
        let file = FileManager.default.temporaryDirectory.appending(path: "chappie-bench-\(UUID()).sse")
        let body = ReplyBody.sse(deltas: deltas)
        try body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let emulator = try EmulatorProcess(replayFile: file)
        defer { emulator.stop() }
        var environment = ProcessInfo.processInfo.environment
        environment["CHAPPIE_BENCH_TOKENS"] = String(decoding: try JSONSerialization.data(withJSONObject: [
            "base_url": emulator.baseURL.absoluteString, "access_token": emulator.tokens.accessToken, "id_token": emulator.tokens.idToken,
            "refresh_token": emulator.tokens.refreshToken, "expires_in": emulator.tokens.expiresIn,
        ]), as: UTF8.self)
        let child = try BenchProcess([ProcessInfo.processInfo.arguments[0], slowConsumerCommand], environment: environment, keepsStandardError: true)
        child.closeInput()
        let exit = child.wait()
        guard exit.status == 0, let line = String(decoding: exit.output, as: UTF8.self).split(separator: "\n").last,
              var result = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw BenchError("the slow consumer failed: \(String(decoding: exit.output, as: UTF8.self))")
        }
        result["bench"] = "slow_consumer_memory"
        result["body_bytes"] = body.count
        return result
    }

    /// The hidden subcommand of the slow-consumer child.
    static let slowConsumerCommand = "slow-consumer"

    /// The child side: streams the reply, pausing 50 ms at each of the first 40 events so the
    /// network runs far ahead of the reader, then reads the rest; prints its memory figures.
    static func runSlowConsumer() async throws {
        guard let json = ProcessInfo.processInfo.environment["CHAPPIE_BENCH_TOKENS"],
              let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              let base = (object["base_url"] as? String).flatMap(URL.init(string:)), let access = object["access_token"] as? String,
              let id = object["id_token"] as? String, let refresh = object["refresh_token"] as? String,
              let expires = object["expires_in"] as? Int else { throw BenchError("no tokens") }
        let tokens = BenchTokens(idToken: id, accessToken: access, refreshToken: refresh, expiresIn: expires)
        let client = ChappieClient(configuration: try await BenchConfiguration.make(issuer: base, backend: base.appending(path: "backend-api"),
                                                                                     tokens: tokens))
        let baseline = CPUClock.currentResidentBytes() ?? 0
        var events = 0
        var textBytes = 0
        var kept = 0
        for try await event in client.stream("a long one, please") {
            events += 1
            if events <= 40 { try await Task.sleep(for: .milliseconds(50)) }
            switch event {
            case .textDelta(let text): textBytes += text.utf8.count
            case .completed(let response): kept = response.outputText.utf8.count
            default: break
            }
        }
        let peak = CPUClock.peakResidentBytes() ?? 0
        let line: [String: Any] = ["events_read": events, "text_bytes": textBytes, "kept_text_bytes": kept, "baseline_rss_bytes": baseline,
                                   "peak_rss_bytes": peak, "peak_above_baseline_bytes": peak - baseline,
                                   "peak_above_baseline_minus_kept_text_bytes": peak - baseline - kept]
        FileHandle.standardOutput.write(try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]) + Data("\n".utf8))
    }

    private static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        return values.sorted()[values.count / 2]
    }
}
