import ChappieEmulator
import Foundation

/// The emulator in a child process (`chappie-bench serve-emulator`), so that the CPU time the
/// benchmark reads for itself is the client's alone.
final class EmulatorProcess: @unchecked Sendable {
    /// The emulator's issuer URL (`http://127.0.0.1:PORT`).
    let baseURL: URL
    /// Tokens the emulator issued for the benchmark's account.
    let tokens: BenchTokens
    private let process: BenchProcess

    /// The backend base URL (`…/backend-api`).
    var backendBaseURL: URL { baseURL.appending(path: "backend-api") }

    /// Starts a child emulator that answers every `/responses` call with the SSE bytes in
    /// `replayFile` (or with the scripted model when nil), deltas of `deltaCharacters`.
    /// Throws ``BenchError`` when the child does not start.
    init(replayFile: URL? = nil, deltaCharacters: Int = 16) throws {
        var arguments = [ProcessInfo.processInfo.arguments[0], Self.serveCommand, "--delta-characters", "\(deltaCharacters)"]
        if let replayFile { arguments += ["--replay", replayFile.path] }
        process = try BenchProcess(arguments)
        guard let line = process.readLine(),
              let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let base = (object["base_url"] as? String).flatMap(URL.init(string:)),
              let access = object["access_token"] as? String, let id = object["id_token"] as? String,
              let refresh = object["refresh_token"] as? String, let expires = object["expires_in"] as? Int else {
            throw BenchError("the emulator child did not start")
        }
        baseURL = base
        tokens = BenchTokens(idToken: id, accessToken: access, refreshToken: refresh, expiresIn: expires)
    }

    /// Stops the child (it exits when its standard input closes).
    func stop() {
        process.closeInput()
        _ = process.wait()
    }

    /// The hidden subcommand that runs the child side.
    static let serveCommand = "serve-emulator"

    /// The child side: starts an emulator, prints its URL and tokens as one JSON line, and serves
    /// until standard input ends.
    static func serve(arguments: [String]) async throws {
        func option(_ name: String) -> String? {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
        }
        let reply = try option("--replay").map { ChappieEmulator.ScriptedReply.replaySSE(try Data(contentsOf: URL(fileURLWithPath: $0))) }
        let emulator = try await ChappieEmulator.start(.init(usagePercentPerResponse: 0,
                                                              deltaCharacters: option("--delta-characters").flatMap(Int.init) ?? 16,
                                                              standingReply: reply))
        let tokens = await emulator.issueTokens()
        let line: [String: Any] = ["base_url": emulator.baseURL.absoluteString, "access_token": tokens.accessToken,
                                   "id_token": tokens.idToken, "refresh_token": tokens.refreshToken, "expires_in": tokens.expiresIn]
        FileHandle.standardOutput.write(try JSONSerialization.data(withJSONObject: line) + Data("\n".utf8))
        await Task.detached { while FileHandle.standardInput.availableData.count > 0 {} }.value
        await emulator.shutdown()
    }
}

/// A token triple handed from the emulator child to the benchmark.
struct BenchTokens: Sendable {
    /// The ID token (JWT).
    var idToken: String
    /// The access token (JWT).
    var accessToken: String
    /// The refresh token.
    var refreshToken: String
    /// Seconds until the access token expires.
    var expiresIn: Int
}
