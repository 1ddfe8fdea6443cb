import Foundation

/// A local stand-in for the ChatGPT auth server and the Codex backend (STUB: being replaced).
public final class ChappieEmulator: Sendable {
    /// Options for a new emulator.
    public struct Configuration: Sendable {
        /// Loopback port to bind; 0 picks a free one.
        public var port: Int
        /// Seconds the client should wait between device-code polls (sent as a JSON string).
        public var pollingIntervalSeconds: Int
        /// Number of polls after which a device code is approved automatically; nil = never.
        public var autoApproveAfterPolls: Int?
        /// Lifetime of issued access tokens, in seconds.
        public var accessTokenLifetime: Int
        /// Creates a configuration.
        public init(port: Int = 0, pollingIntervalSeconds: Int = 5, autoApproveAfterPolls: Int? = 2, accessTokenLifetime: Int = 3600) {
            self.port = port
            self.pollingIntervalSeconds = pollingIntervalSeconds
            self.autoApproveAfterPolls = autoApproveAfterPolls
            self.accessTokenLifetime = accessTokenLifetime
        }
    }
    /// The bound port.
    public let port: Int
    /// `http://127.0.0.1:<port>`: the auth issuer base URL.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// `<baseURL>/backend-api`.
    public var backendBaseURL: URL { baseURL.appendingPathComponent("backend-api") }
    init(port: Int) { self.port = port }
    /// Starts an emulator.
    public static func start(_ configuration: Configuration = .init()) async throws -> ChappieEmulator {
        ChappieEmulator(port: configuration.port)
    }
    /// Approves a pending user code; returns false when unknown.
    @discardableResult public func approve(userCode: String) async -> Bool { false }
    /// Stops listening and closes every connection.
    public func shutdown() async {}
}
