import ChappieEmulator
import ChappieSDK
import Foundation

extension ChappieTestEmulator {
    /// What an app test needs after signing in to a fresh emulator: the emulator (to script
    /// replies), the configuration, a signed-in session and a client, all on one virtual clock.
    public struct SignedIn: Sendable {
        /// The running emulator; script it with ``ChappieEmulator/ChappieEmulator/scriptReplies(_:)``.
        public let emulator: ChappieEmulator
        /// The configuration pointing at the emulator, with an in-memory credential store.
        public let configuration: ChappieConfiguration
        /// A session that completed the device-code sign-in (`state == .signedIn`).
        public let session: ChappieAuthSession
        /// A client for the same configuration, with the given host tools.
        public let client: ChappieClient
        /// The virtual clock of the session and the client: polling and back-off never sleep.
        public let time: ChappieVirtualTime
    }

    /// Starts an emulator, signs in through the real device-code flow, builds a client, runs
    /// `body`, and shuts the client (``/ChappieSDK/ChappieClient/shutdown()``), the session
    /// (``/ChappieSDK/ChappieAuthSession/shutdown()``) and the emulator down whether `body`
    /// returns or throws.
    /// - Parameters:
    ///   - isolation: the caller's actor, so `body` runs where the caller does.
    ///   - emulatorConfiguration: the emulator's settings (default: 1 s polling, approved on the first poll).
    ///   - configure: changes to the SDK configuration (model, harness, …) before signing in.
    ///   - tools: the host tools the client offers the model.
    ///   - toolApprovalHandler: decides on `.ask` tools.
    ///   - body: the test.
    /// - Returns: what `body` returns.
    /// - Throws: ``/ChappieSDK/ChappieAuthError`` when the sign-in fails, or what `body` throws.
    public static func withSignedIn<Result: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        _ emulatorConfiguration: ChappieEmulator.Configuration = .init(pollingIntervalSeconds: 1, autoApproveAfterPolls: 1),
        configure: (inout ChappieConfiguration) -> Void = { _ in },
        tools: [ChappieHostTool] = [],
        toolApprovalHandler: ChappieToolApprovalHandler? = nil,
        _ body: (SignedIn) async throws -> Result
    ) async throws -> Result {
        try await with(emulatorConfiguration, configure: configure) { emulator, configuration in
            let time = ChappieVirtualTime()
            let session = try await signedInSession(configuration, time: time)
            let client = ChappieClient(configuration: configuration, tools: tools, toolApprovalHandler: toolApprovalHandler,
                                       timeSource: time.timeSource)
            do {
                let result = try await body(SignedIn(emulator: emulator, configuration: configuration, session: session, client: client, time: time))
                await client.shutdown()
                await session.shutdown()
                return result
            } catch {
                await client.shutdown()
                await session.shutdown()
                throw error
            }
        }
    }

    /// A session for `configuration` that has signed in through the device-code flow on `time`.
    /// Throws ``/ChappieSDK/ChappieAuthError``.
    @MainActor
    private static func signedInSession(_ configuration: ChappieConfiguration, time: ChappieVirtualTime) async throws -> ChappieAuthSession {
        let session = ChappieAuthSession(configuration: configuration, timeSource: time.timeSource)
        do {
            try await session.startDeviceCodeSignIn()
        } catch {
            await session.shutdown()
            throw error
        }
        return session
    }
}
