import ChappieEmulator
import ChappieSDK
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
        var tokens = BenchTokens(idToken: id, accessToken: access, refreshToken: refresh, expiresIn: expires)
        if let access = object["siwc_access_token"] as? String, let id = object["siwc_id_token"] as? String,
           let refresh = object["siwc_refresh_token"] as? String, let client = object["siwc_client_id"] as? String,
           let scope = object["siwc_scope"] as? String {
            tokens.signInWithChatGPT = BenchTokens.SignInWithChatGPT(idToken: id, accessToken: access, refreshToken: refresh,
                                                                      clientID: client, scopes: scope.split(separator: " ").map(String.init))
        }
        self.tokens = tokens
    }

    /// The public API's base URL (`…/v1`), where a Sign in with ChatGPT credential's requests go.
    var apiBaseURL: URL { baseURL.appending(path: "v1") }

    /// The Responses base URL of `route` (the Codex backend's `…/backend-api/codex`, the public
    /// API's `…/v1`), for the peers that are pointed at it.
    func responsesBase(_ route: ChappieSignInRoute) -> URL {
        route == .signInWithChatGPT ? apiBaseURL : backendBaseURL.appending(path: "codex")
    }

    /// The access token of `route`'s credential.
    func accessToken(_ route: ChappieSignInRoute) -> String {
        route == .signInWithChatGPT ? tokens.signInWithChatGPT?.accessToken ?? "" : tokens.accessToken
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
        let siwc = await emulator.issueSignInWithChatGPTTokens(planUsage: true)
        let line: [String: Any] = ["base_url": emulator.baseURL.absoluteString, "access_token": tokens.accessToken,
                                   "id_token": tokens.idToken, "refresh_token": tokens.refreshToken, "expires_in": tokens.expiresIn,
                                   "siwc_access_token": siwc.accessToken, "siwc_id_token": siwc.idToken, "siwc_refresh_token": siwc.refreshToken,
                                   "siwc_client_id": siwc.clientID, "siwc_scope": siwc.scope]
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
    /// The Sign in with ChatGPT token set the emulator issued beside, when it did.
    var signInWithChatGPT: SignInWithChatGPT?

    /// A Sign in with ChatGPT token set (plan usage granted).
    struct SignInWithChatGPT: Sendable {
        /// The ID token (JWT).
        var idToken: String
        /// The access token (JWT).
        var accessToken: String
        /// The refresh token.
        var refreshToken: String
        /// The issued client id.
        var clientID: String
        /// The granted scopes.
        var scopes: [String]
    }
}
