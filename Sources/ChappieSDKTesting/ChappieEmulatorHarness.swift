import ChappieEmulator
import ChappieSDK
import Foundation

/// Runs test bodies against a fresh emulator and always shuts it down.
public enum ChappieTestEmulator {
    /// Starts an emulator (port 0), builds a configuration for it with an in-memory credential
    /// store, runs `body`, and shuts the emulator down whether `body` returns or throws.
    public static func with<Result: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        _ emulatorConfiguration: ChappieEmulator.Configuration = .init(pollingIntervalSeconds: 1, autoApproveAfterPolls: 1),
        configure: (inout ChappieConfiguration) -> Void = { _ in },
        _ body: (ChappieEmulator, ChappieConfiguration) async throws -> Result
    ) async throws -> Result {
        let emulator = try await ChappieEmulator.start(emulatorConfiguration)
        var configuration = ChappieConfiguration(
            endpoints: ChappieEndpoints(authIssuer: emulator.baseURL, backend: emulator.backendBaseURL),
            credentialStore: ChappieInMemoryCredentialStore())
        configure(&configuration)
        do {
            let result = try await body(emulator, configuration)
            await emulator.shutdown()
            return result
        } catch {
            await emulator.shutdown()
            throw error
        }
    }

    /// Signs in to `emulator` through the real device-code flow on a virtual clock (no waiting).
    /// Throws ``/ChappieSDK/ChappieAuthError``.
    @MainActor
    public static func signIn(_ configuration: ChappieConfiguration, time: ChappieVirtualTime = ChappieVirtualTime()) async throws {
        let session = ChappieAuthSession(configuration: configuration, timeSource: time.timeSource)
        try await session.startDeviceCodeSignIn()
    }
}
