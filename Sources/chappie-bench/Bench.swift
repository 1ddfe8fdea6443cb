@_spi(ChappieBenchmarks) @_spi(ChappieTesting) import ChappieCore
import ChappieEmulator
import Foundation

/// `swift run -c release chappie-bench [--quick] [--only NAME,…] [--sizes N,…] [--route NAME|both]`: measures Chappie
/// through the path a user takes, against peers measured in the same run (DESIGN §8), and prints
/// one JSON object per line: first the machine, then one line per measurement, each with its
/// ratios. Peers: the `openai` Python library (client and SSE decoder) and `curl`; a missing peer
/// is reported as null. `--quick` runs small sizes (CI runs it so the benchmark never rots).
@main
enum Bench {
    static func main() async throws {
        let arguments = Array(ProcessInfo.processInfo.arguments.dropFirst())
        if arguments.first == EmulatorProcess.serveCommand {
            try await EmulatorProcess.serve(arguments: Array(arguments.dropFirst()))
            return
        }
        if arguments.first == PipelineBench.slowConsumerCommand {
            try await PipelineBench.runSlowConsumer()
            return
        }
        let options = BenchOptions(arguments)
        emit(["bench": "machine", "chappie_version": ChappieVersion.current, "build": isDebug ? "debug" : "release",
              "quick": options.quick, "cpu": BenchMachine.cpuModel as Any, "cores": ProcessInfo.processInfo.activeProcessorCount,
              "os": ProcessInfo.processInfo.operatingSystemVersionString])
        // The three user-facing figures on both backends: the device-code route's Codex backend
        // and the Sign in with ChatGPT route's public API (each line names its "route").
        for route in options.routes {
            if options.runs("long_reply") {
                let sizes = options.sizes ?? (options.quick ? [2_000, 10_000] : [8_000, 40_000, 200_000])
                for result in try await LongReplyBench.run(sizes: sizes, route: route) { emit(result) }
            }
            if options.runs("first_delta") { emit(try await PipelineBench.firstDelta(turns: options.quick ? 5 : 20, route: route)) }
            if options.runs("connections_per_conversation") { emit(try await PipelineBench.connectionsPerConversation(turns: 20, route: route)) }
        }
        if options.runs("partial_json") {
            for result in try await PartialJSONBench.run(sizes: options.quick ? [20_000, 200_000] : [100_000, 500_000]) { emit(result) }
        }
        if options.runs("slow_consumer_memory") { emit(try PipelineBench.slowConsumer(megabytes: options.quick ? 10 : 100)) }
        if options.runs("upload_per_conversation") { emit(try await UploadBench.run(turns: options.quick ? 5 : 30)) }
        if options.runs("sse_decode") { emit(try sseDecode(events: options.quick ? 4_000 : 20_000)) }
        if options.runs("expired_token_concurrency") { emit(try await expiredTokenConcurrency(requests: options.quick ? 100 : 1_000)) }
        if options.runs("request_encoding") { emit(requestEncoding(sizes: options.quick ? [10, 1_000] : [10, 1_000, 10_000])) }
        if options.runs("thread_store") { emit(["bench": "thread_store"].merging(try await ThreadStoreBench.run()) { first, _ in first }) }
        emit(["bench": "peak_memory", "bytes": CPUClock.peakResidentBytes() as Any])
    }

    #if DEBUG
    static let isDebug = true
    #else
    static let isDebug = false
    #endif

    /// Prints `object` as one JSON line.
    static func emit(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// SSE parsing plus event decoding of `events` delta events in the recorded format, 8 KiB
    /// chunks, best of 3, against the openai Python decoder on the same file.
    static func sseDecode(events count: Int) throws -> [String: Any] {
        let data = ReplyBody.sse(deltas: count)
        var best = Double.infinity
        var events = 0
        for _ in 0..<3 {
            let start = CPUClock.wall()
            events = ChappieBenchmarkSupport.decodeSSE(data, chunkSize: 8192)
            best = min(best, CPUClock.wall() - start)
        }
        let file = FileManager.default.temporaryDirectory.appending(path: "chappie-bench-\(UUID()).sse")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let peer = BenchProcess.runJSON(["python3", BenchScripts.path("openai_sse_decode.py"), file.path, "8192"])
        let peerSeconds = peer?["seconds"] as? Double
        return ["bench": "sse_decode", "bytes": data.count, "events": events, "seconds": best,
                "bytes_per_second": Double(data.count) / best, "events_per_second": Double(events) / best,
                "openai_python_seconds": peerSeconds as Any, "speedup_vs_openai_python": peerSeconds.map { $0 / best } as Any,
                "target_speedup_at_least": 10]
    }

    /// `requests` concurrent requests with an expired access token: refresh calls made (must be 1).
    static func expiredTokenConcurrency(requests: Int) async throws -> [String: Any] {
        let emulator = try await ChappieEmulator.start(.init(usagePercentPerResponse: 0))
        defer { Task { await emulator.shutdown() } }
        let issued = await emulator.issueTokens(accessTokenLifetime: -10)
        let tokens = BenchTokens(idToken: issued.idToken, accessToken: issued.accessToken, refreshToken: issued.refreshToken,
                                 expiresIn: issued.expiresIn)
        let configuration = try await BenchConfiguration.make(issuer: emulator.baseURL, backend: emulator.backendBaseURL, tokens: tokens,
                                                              accessTokenExpiresIn: -10)
        let client = ChappieClient(configuration: configuration)
        let before = await emulator.refreshGrantsServed
        let start = CPUClock.wall()
        let succeeded = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<requests { group.addTask { (try? await client.usageLimits()) != nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        let refreshes = await emulator.refreshGrantsServed - before
        return ["bench": "expired_token_concurrency", "requests": requests, "succeeded": succeeded, "refresh_calls": refreshes,
                "seconds": CPUClock.wall() - start, "target_refresh_calls": 1]
    }

    /// Building the request body for transcripts of each size in `sizes` (messages of 200
    /// characters); the growth must be linear.
    static func requestEncoding(sizes: [Int]) -> [String: Any] {
        var result: [String: Any] = ["bench": "request_encoding"]
        var secondsBySize: [Int: Double] = [:]
        for messages in sizes {
            let start = CPUClock.wall()
            let bytes = ChappieBenchmarkSupport.encodeRequest(messageCount: messages, characters: 200)
            let seconds = CPUClock.wall() - start
            secondsBySize[messages] = seconds
            result["messages_\(messages)"] = ["bytes": bytes, "seconds": seconds]
        }
        if let small = sizes.dropFirst().first, let large = sizes.last, large != small, let a = secondsBySize[small], let b = secondsBySize[large] {
            result["growth"] = ["size_ratio": Double(large) / Double(small), "time_ratio": b / a]
        }
        return result
    }
}

/// Command-line options of the benchmark.
struct BenchOptions {
    /// Small sizes (CI).
    var quick = false
    /// Only these sections, when given.
    var only: Set<String>?
    /// Reply sizes for `long_reply`, when given.
    var sizes: [Int]?
    /// The routes whose backends `long_reply`, `first_delta` and `connections_per_conversation`
    /// measure (`--route device_code|sign_in_with_chatgpt|both`; default both).
    var routes: [ChappieSignInRoute] = ChappieSignInRoute.allCases

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--quick": quick = true
            case "--only": only = iterator.next().map { Set($0.split(separator: ",").map(String.init)) }
            case "--sizes": sizes = iterator.next()?.split(separator: ",").compactMap { Int($0) }
            case "--route":
                let name = iterator.next() ?? ""
                routes = name == "both" ? ChappieSignInRoute.allCases : ChappieSignInRoute(rawValue: name).map { [$0] } ?? routes
            default: FileHandle.standardError.write(Data("chappie-bench: unknown option \(argument)\n".utf8))
            }
        }
    }

    /// Whether the section `name` runs.
    func runs(_ name: String) -> Bool { only?.contains(name) ?? true }
}

/// Facts about the machine for the first line.
enum BenchMachine {
    /// The CPU model from `/proc/cpuinfo`, or nil.
    static var cpuModel: String? {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let line = info.split(separator: "\n").first(where: { $0.hasPrefix("model name") }) else { return nil }
        return line.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
