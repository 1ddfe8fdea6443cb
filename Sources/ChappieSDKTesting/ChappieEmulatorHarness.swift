import ChappieEmulator
import ChappieSDK
import Foundation

/// Runs test bodies against a fresh emulator and always shuts it down.
public enum ChappieTestEmulator {
    /// Starts an emulator (port 0), builds a configuration for it with an in-memory credential
    /// store, runs `body`, and shuts the emulator down whether `body` returns or throws.
    ///
    /// Nobody is signed in yet: sign in with ``signIn(_:time:)`` (or use
    /// ``withSignedIn(isolation:_:configure:tools:toolApprovalHandler:_:)``, which does). Change the configuration the app's code
    /// gets with `configure`, for example the streaming transport:
    ///
    /// ```swift
    /// try await ChappieTestEmulator.with(configure: { $0.streamingTransportPolicy = .httpSSEOnly }) { emulator, configuration in
    ///     try await ChappieTestEmulator.signIn(configuration)
    ///     await emulator.scriptReplies(.text("Hi"))
    ///     let reply = try await ChappieClient(configuration: configuration).send("Hello")
    ///     // reply == "Hi"
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - isolation: the caller's actor, so `body` runs where the caller does.
    ///   - emulatorConfiguration: how the emulator behaves (device-code polling interval, when it
    ///     approves a code, …); by default it approves a code on its first poll, one second in.
    ///   - configure: changes the ``/ChappieSDK/ChappieConfiguration`` before `body` gets it; its
    ///     endpoints point at the emulator and its credential store is in memory.
    ///   - body: the test, given the running emulator (to script replies and read what it
    ///     received) and the configuration to build the app's session and client from.
    /// - Returns: what `body` returns.
    /// - Throws: the emulator's start error, or what `body` throws.
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
        try await ChappieAuthSession.with(configuration: configuration, timeSource: time.timeSource) { session in
            try await session.startDeviceCodeSignIn()
        }
    }
}
