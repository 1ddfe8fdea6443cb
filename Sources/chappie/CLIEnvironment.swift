import ChappieEmulator
import ChappieSDK
import Foundation

/// What a command runs against: the real endpoints with the file credential store, a URL override,
/// or an in-process emulator with an in-memory store.
struct CLIEnvironment {
    var configuration: ChappieConfiguration
    var emulator: ChappieEmulator?

    /// Builds the environment from global options and `CHAPPIE_AUTH_URL` / `CHAPPIE_BACKEND_URL`.
    /// Throws ``UsageError`` for a bad URL, or the emulator's start error.
    static func make(_ arguments: ParsedArguments, emulatorPollInterval: Int = 1) async throws -> CLIEnvironment {
        var configuration = ChappieConfiguration(
            keychainAccount: arguments.option("account") ?? "default",
            model: arguments.option("model") ?? ChappieClient.defaultModel,
            originator: "chappie_cli")
        #if os(macOS)
        // An unsigned command-line tool has no entitlement for the data-protection keychain.
        configuration.credentialStore = ChappieKeychainCredentialStore(usesDataProtectionKeychain: false)
        #endif
        var emulator: ChappieEmulator?
        if arguments.flag("emulator") {
            let started = try await ChappieEmulator.start(
                .init(pollingIntervalSeconds: emulatorPollInterval, autoApproveAfterPolls: 2))
            configuration.endpoints = ChappieEndpoints(authIssuer: started.baseURL, backend: started.backendBaseURL)
            configuration.credentialStore = ChappieInMemoryCredentialStore()
            emulator = started
        } else {
            let environment = ProcessInfo.processInfo.environment.filter { !$0.value.isEmpty }
            if let auth = arguments.option("auth-url") ?? environment["CHAPPIE_AUTH_URL"] {
                configuration.endpoints.authIssuer = try url(auth, option: "auth-url")
            }
            if let backend = arguments.option("backend-url") ?? environment["CHAPPIE_BACKEND_URL"] {
                configuration.endpoints.backend = try url(backend, option: "backend-url")
            }
        }
        return CLIEnvironment(configuration: configuration, emulator: emulator)
    }

    private static func url(_ text: String, option: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw UsageError(message: "--\(option) must be an http(s) URL")
        }
        return url
    }

    /// Stops the in-process emulator, if any.
    func shutdown() async {
        await emulator?.shutdown()
    }
}
