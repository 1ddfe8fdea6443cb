import ChappieEmulator
import ChappieSDK
import Foundation

/// What a command runs against: the real endpoints with the file credential store, a URL override,
/// or an in-process emulator with an in-memory store.
struct CLIEnvironment {
    var configuration: ChappieConfiguration
    var emulator: ChappieEmulator?
    /// With the in-process emulator: sign in with Sign in with ChatGPT (`--siwc`), so requests go
    /// to the emulator's public API (`/v1`), instead of the device-code flow.
    var signsInWithChatGPT = false

    /// The CLI's credential service, named explicitly: it is the SDK's old default, so a sign-in
    /// saved by an earlier `chappie` keeps working (an app's default is derived from its name).
    static let keychainService = "com.chappie.sdk"

    /// Builds the environment from global options and `CHAPPIE_AUTH_URL` / `CHAPPIE_BACKEND_URL`.
    /// Throws ``UsageError`` for a bad URL, or the emulator's start error.
    static func make(_ arguments: ParsedArguments, emulatorPollInterval: Int = 1) async throws -> CLIEnvironment {
        var configuration = ChappieConfiguration(
            keychainService: keychainService,
            keychainAccount: arguments.option("account") ?? "default",
            model: arguments.option("model") ?? ChappieClient.defaultModel,
            originator: "chappie_cli")
        #if os(macOS)
        // An unsigned command-line tool has no entitlement for the data-protection keychain.
        configuration.credentialStore = ChappieKeychainCredentialStore(usesDataProtectionKeychain: false)
        #endif
        configuration.streamingTransportPolicy = try transportPolicy(arguments)
        // Only a command that streams a reply warms the WebSocket when its client is created; for
        // the others it would be a connection nobody uses, still handshaking when the process ends.
        configuration.streamingTransportPolicy.prewarmsWebSocket = streamsReplies(arguments)
        var emulator: ChappieEmulator?
        if arguments.flag("emulator") {
            // The in-process emulator and its in-memory credential live for one command only.
            guard !["login", "logout", "status"].contains(arguments.command) else {
                throw UsageError(
                    message: "--emulator lasts one command, so \(arguments.command) has nothing to keep; "
                        + "start `chappie emulator` and pass its URL with --auth-url instead",
                    command: arguments.command)
            }
            let started = try await ChappieEmulator.start(
                .init(pollingIntervalSeconds: emulatorPollInterval, autoApproveAfterPolls: 2))
            configuration.endpoints = ChappieEndpoints(authIssuer: started.baseURL, backend: started.backendBaseURL)
            configuration.credentialStore = ChappieInMemoryCredentialStore()
            emulator = started
        } else {
            let environment = ProcessInfo.processInfo.environment.filter { !$0.value.isEmpty }
            // The flag wins over the variable; an error names whichever was used.
            func override(_ option: String, _ variable: String) -> (text: String, source: String)? {
                if let value = arguments.option(option) { return (value, "--" + option) }
                return environment[variable].map { ($0, variable) }
            }
            // Another issuer gets a credential slot of its own (ChappieConfiguration.credentialKey).
            if let auth = override("auth-url", "CHAPPIE_AUTH_URL") {
                let issuer = try url(auth.text, source: auth.source)
                // Its sign-in never goes to ChatGPT's backend (ChappieEndpoints): without a backend
                // override, the backend is the issuer's own /backend-api (chappie emulator's layout).
                // Built whole, so the public API base is the issuer's default too, never OpenAI's.
                configuration.endpoints = ChappieEndpoints(authIssuer: issuer, backend: issuer.appending(path: "backend-api"))
            }
            if let backend = override("backend-url", "CHAPPIE_BACKEND_URL") {
                configuration.endpoints.backend = try url(backend.text, source: backend.source)
                // The ChatGPT sign-in is never sent to a backend override alone (ChappieEndpoints).
                do { try configuration.endpoints.validate() } catch {
                    guard case .backendNotOfIssuer = error else { throw error }
                    throw UsageError(message: "\(backend.source) is not ChatGPT's backend, so your ChatGPT sign-in is not sent "
                                         + "there: also pass --auth-url (or CHAPPIE_AUTH_URL) for that server and sign in to it")
                }
            }
        }
        return CLIEnvironment(configuration: configuration, emulator: emulator, signsInWithChatGPT: arguments.flag("siwc"))
    }

    /// The streaming transport from `--transport auto|websocket|http` (or `CHAPPIE_TRANSPORT`):
    /// `auto` (the default) is the SDK's WebSocket-first policy with HTTP/SSE as the fallback,
    /// `websocket` the WebSocket without a fallback, `http` HTTP/SSE only. Throws ``UsageError``.
    static func transportPolicy(_ arguments: ParsedArguments) throws -> ChappieStreamingTransportPolicy {
        let variable = ProcessInfo.processInfo.environment["CHAPPIE_TRANSPORT"].flatMap { $0.isEmpty ? nil : $0 }
        switch arguments.option("transport") ?? variable ?? "auto" {
        case "auto": return .default
        case "websocket": return ChappieStreamingTransportPolicy(prefersWebSocket: true, fallsBackToHTTPSSE: false)
        case "http": return .httpSSEOnly
        case let other:
            throw UsageError(message: "--transport must be auto, websocket or http, not \(other)", command: arguments.command)
        }
    }

    /// True for the commands that stream a model reply — `ask`, `chat`, `demo` and `threads
    /// resume` — the only ones whose client may warm a WebSocket ahead of the first turn.
    static func streamsReplies(_ arguments: ParsedArguments) -> Bool {
        switch arguments.command {
        case "ask", "chat", "demo": true
        case "threads": arguments.positionals.first == "resume"
        default: false
        }
    }

    /// Parses an endpoint override given by `source` (the flag or the environment variable, as
    /// named in an error). Tokens travel to these URLs, so plain `http` is accepted only for
    /// loopback hosts (an emulator on this machine). Throws ``UsageError``.
    private static func url(_ text: String, source: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty else {
            throw UsageError(message: "\(source) must be an http(s) URL")
        }
        guard url.port.map({ (1...65535).contains($0) }) ?? true else {
            throw UsageError(message: "\(source) has port \(url.port ?? 0); a port is a number from 1 to 65535")
        }
        guard ChappieEndpoints.allowsSecrets(to: url) else {
            throw UsageError(message: "\(source) must use https: plain http would send your tokens unencrypted "
                                 + "(http is allowed only for localhost, 127.0.0.0/8 and ::1)")
        }
        return url
    }

    /// Stops the in-process emulator, if any.
    func shutdown() async {
        await emulator?.shutdown()
    }

    /// Runs `body`, then shuts the command's clients down (``CLIClients``) and stops the
    /// in-process emulator, whether `body` returns or throws.
    @MainActor
    func closing<Result>(_ body: @MainActor () async throws -> Result) async throws -> Result {
        do {
            let result = try await body()
            await close()
            return result
        } catch {
            await close()
            throw error
        }
    }

    @MainActor
    private func close() async {
        await CLIClients.shutDownAll()
        await shutdown()
    }
}
