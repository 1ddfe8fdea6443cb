@_spi(ChappieBenchmarks) @_spi(ChappieTesting) import ChappieSDK
import ChappieEmulator
import Foundation

/// `swift run -c release chappie-bench`: measures Chappie against peers in the same run and prints
/// one JSON object (DESIGN §8). Peers: the `openai` Python library's SSE decoder and streaming
/// client, and `curl`, when installed; a missing peer is reported as null.
@main
enum Bench {
    static func main() async throws {
        var results: [String: Any] = ["chappie_version": ChappieVersion.current, "build": isDebug ? "debug" : "release"]
        results["sse_decode"] = try sseDecode()
        let emulator = try await ChappieEmulator.start(.init(deltaCharacters: 16))
        results["stream_end_to_end"] = try await streamEndToEnd(emulator)
        results["expired_token_concurrency"] = try await expiredTokenConcurrency(emulator)
        await emulator.shutdown()
        results["request_encoding"] = requestEncoding()
        results["thread_store"] = try await ThreadStoreBench.run()
        results["peak_memory_bytes"] = peakMemoryBytes()
        let data = try JSONSerialization.data(withJSONObject: results, options: [.prettyPrinted, .sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    }

    #if DEBUG
    static let isDebug = true
    #else
    static let isDebug = false
    #endif

    /// SSE parsing plus event decoding of 20,000 delta events, 8 KiB chunks, best of 3.
    static func sseDecode() throws -> [String: Any] {
        var text = #"event: response.created\#ndata: {"type":"response.created","response":{"id":"resp_b"}}\#n\#n"#
        let delta = #"event: response.output_text.delta\#ndata: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Chappie streams this text quickly — é…","sequence_number":1}\#n\#n"#
        text += String(repeating: delta, count: 20_000)
        text += #"event: response.completed\#ndata: {"type":"response.completed","response":{"id":"resp_b"}}\#n\#n"#
        let data = Data(text.utf8)
        var best = Double.infinity
        var events = 0
        for _ in 0..<3 {
            let start = DispatchTime.now().uptimeNanoseconds
            events = ChappieBenchmarkSupport.decodeSSE(data, chunkSize: 8192)
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        let file = FileManager.default.temporaryDirectory.appending(path: "chappie-bench-\(UUID()).sse")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let peer = runJSON("python3", [script("openai_sse_decode.py"), file.path, "8192"])
        let peerSeconds = peer?["seconds"] as? Double
        return ["bytes": data.count, "events": events, "seconds": best,
                "bytes_per_second": Double(data.count) / best, "events_per_second": Double(events) / best,
                "openai_python_seconds": peerSeconds as Any,
                "speedup_vs_openai_python": peerSeconds.map { $0 / best } as Any]
    }

    /// One long streamed reply from the emulator: Chappie vs the openai Python client vs curl.
    static func streamEndToEnd(_ emulator: ChappieEmulator) async throws -> [String: Any] {
        let prompt = String(repeating: "stream me ", count: 4_000)
        let tokens = await emulator.issueTokens()
        let configuration = try await configuration(for: emulator, tokens: tokens)
        let client = ChappieClient(configuration: configuration)
        let start = DispatchTime.now().uptimeNanoseconds
        var characters = 0
        for try await event in client.stream(prompt) { if case .textDelta(let text) = event { characters += text.count } }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let codexURL = emulator.backendBaseURL.appending(path: "codex").absoluteString
        let peer = runJSON("python3", [script("openai_stream.py"), codexURL, tokens.accessToken, prompt])
        let body = #"{"model":"gpt-5.5","instructions":"bench","store":false,"stream":true,"input":[{"role":"user","content":[{"type":"input_text","text":"\#(prompt)"}]}]}"#
        let curlStart = DispatchTime.now().uptimeNanoseconds
        let curl = run("curl", ["-sN", "-o", "/dev/null", "-X", "POST", codexURL + "/responses", "-H", "Authorization: Bearer \(tokens.accessToken)",
                                "-H", "Content-Type: application/json", "--data-binary", body]) != nil
        let curlSeconds = curl ? Double(DispatchTime.now().uptimeNanoseconds - curlStart) / 1e9 : nil
        let peerSeconds = peer?["seconds"] as? Double
        return ["characters": characters, "seconds": seconds, "openai_python_seconds": peerSeconds as Any,
                "curl_seconds": curlSeconds as Any, "speedup_vs_openai_python": peerSeconds.map { $0 / seconds } as Any]
    }

    /// 500 concurrent requests with an expired access token: refresh calls made (must be 1).
    static func expiredTokenConcurrency(_ emulator: ChappieEmulator) async throws -> [String: Any] {
        let tokens = await emulator.issueTokens(accessTokenLifetime: -10)
        let configuration = try await configuration(for: emulator, tokens: tokens, expired: true)
        let client = ChappieClient(configuration: configuration)
        let before = await emulator.refreshGrantsServed
        let start = DispatchTime.now().uptimeNanoseconds
        let succeeded = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<500 { group.addTask { (try? await client.usageLimits()) != nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return ["requests": 500, "succeeded": succeeded, "refresh_calls": await emulator.refreshGrantsServed - before, "seconds": seconds]
    }

    /// Building the request body for a 10,000-message transcript.
    static func requestEncoding() -> [String: Any] {
        let start = DispatchTime.now().uptimeNanoseconds
        let bytes = ChappieBenchmarkSupport.encodeRequest(messageCount: 10_000, characters: 200)
        return ["messages": 10_000, "bytes": bytes, "seconds": Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9]
    }

    /// The process's peak resident memory (VmHWM), in bytes, or nil off Linux.
    static func peakMemoryBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }

    private static func configuration(for emulator: ChappieEmulator, tokens: ChappieEmulator.IssuedTokens, expired: Bool = false) async throws
        -> ChappieConfiguration {
        let store = ChappieInMemoryCredentialStore()
        let configuration = ChappieConfiguration(endpoints: ChappieEndpoints(authIssuer: emulator.baseURL, backend: emulator.backendBaseURL),
                                                 credentialStore: store)
        let credential = ChappieCredential(idToken: tokens.idToken, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
                                           expiresIn: expired ? -10 : TimeInterval(tokens.expiresIn), obtainedAt: Date())
        try await store.saveCredential(credential, for: configuration.credentialKey)
        return configuration
    }

    private static func script(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Benchmarks/\(name)").path
    }

    private static func runJSON(_ tool: String, _ arguments: [String]) -> [String: Any]? {
        guard let output = run(tool, arguments), let line = output.split(separator: "\n").last else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }

    private static func run(_ tool: String, _ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }
}
