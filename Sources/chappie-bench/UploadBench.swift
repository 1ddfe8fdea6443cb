@_spi(ChappieBenchmarks) @_spi(ChappieTesting) import ChappieCore
import ChappieEmulator
import Foundation

/// Bytes a conversation uploads (DESIGN §8): a `turns`-turn conversation with 2 KB prompts over
/// HTTP/SSE, HTTP/SSE with zstd-compressed bodies, and the WebSocket with incremental requests,
/// counted as the emulator received them (HTTP bodies as sent, WebSocket text frames); and the
/// time to the first delta per turn on a warm socket against HTTP keep-alive.
enum UploadBench {
    /// The three modes.
    private enum Mode: String, CaseIterable {
        case http, httpZstd = "http_zstd", webSocket = "websocket"
    }

    static func run(turns: Int) async throws -> [String: Any] {
        var result: [String: Any] = ["bench": "upload_per_conversation", "turns": turns, "prompt_bytes": 2048]
        var totals: [Mode: Int] = [:]
        var firstDelta: [Mode: Double] = [:]
        for mode in Mode.allCases {
            let emulator = try await ChappieEmulator.start(.init(usagePercentPerResponse: 0))
            let issued = await emulator.issueTokens()
            let tokens = BenchTokens(idToken: issued.idToken, accessToken: issued.accessToken, refreshToken: issued.refreshToken,
                                     expiresIn: issued.expiresIn)
            let configuration = try await BenchConfiguration.make(issuer: emulator.baseURL, backend: emulator.backendBaseURL, tokens: tokens,
                                                                  transport: mode == .webSocket ? .default : .httpSSEOnly)
            let client = ChappieBenchmarkSupport.client(configuration: configuration, compressesRequests: mode == .httpZstd)
            var delays: [Double] = []
            for turn in 0..<turns {
                let start = CPUClock.wall()
                var first: Double?
                for try await event in client.stream(prompt(turn)) {
                    if case .textDelta = event, first == nil { first = CPUClock.wall() - start }
                }
                delays.append(first ?? .nan)
            }
            let uploads = await emulator.recordedRequests()
                .filter { $0.path == "/backend-api/codex/responses" && ($0.method == "POST" || $0.method == "WS") }
                .map(\.bodyByteCount)
            await emulator.shutdown()
            totals[mode] = uploads.reduce(0, +)
            firstDelta[mode] = delays.dropFirst().sorted()[max(0, (delays.count - 1) / 2)]
            result[mode.rawValue] = ["requests": uploads.count, "total_bytes": uploads.reduce(0, +), "first_turn_bytes": uploads.first as Any,
                                     "last_turn_bytes": uploads.last as Any, "median_first_delta_seconds": firstDelta[mode] as Any]
        }
        if let http = totals[.http], http > 0 {
            result["zstd_fraction_of_http"] = Double(totals[.httpZstd] ?? 0) / Double(http)
            result["websocket_fraction_of_http"] = Double(totals[.webSocket] ?? 0) / Double(http)
            result["target_websocket_fraction_at_most"] = 0.1
            result["target_zstd_fraction_at_most"] = 0.25
        }
        if let socket = firstDelta[.webSocket], let http = firstDelta[.http] { result["first_delta_websocket_over_http"] = socket / http }
        return result
    }

    /// A 2 KB prompt of English-like words, different every turn.
    private static func prompt(_ turn: Int) -> String {
        let words = ["the", "model", "streams", "tokens", "while", "a", "user", "reads", "code", "review", "notes", "about", "linear",
                     "time", "memory", "socket", "request", "history", "grows", "every", "turn", "so", "upload", "matters", "on",
                     "phones", "with", "slow", "uplinks", "and", "tests", "measure", "it"]
        var generator = SystemRandomNumberGenerator()
        var text = "Turn \(turn):"
        while text.utf8.count < 2048 { text += " " + words[Int.random(in: 0..<words.count, using: &generator)] }
        return String(text.prefix(2048))
    }
}
