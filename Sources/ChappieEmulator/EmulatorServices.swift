import Foundation

/// The emulator's shared state, one actor per concern, plus the configuration. Handlers receive it
/// through ``EmulatorRouter``; the public facade forwards test controls to it.
final class EmulatorServices: Sendable {
    /// The configuration the emulator was started with.
    let configuration: ChappieEmulator.Configuration
    /// Device codes and their approval state (PROTOCOL §1).
    let deviceAuthorizations: DeviceAuthorizationStore
    /// Authorization codes, access and refresh tokens (PROTOCOL §1.3, §2).
    let tokens: TokenStore
    /// Replies scripted by tests for the next `/responses` calls.
    let replies: FaultQueue<ChappieEmulator.ScriptedReply>
    /// Per-account rate-limit usage (PROTOCOL §7).
    let usage: UsageMeter
    /// Every request received, for assertions.
    let recorder: RequestRecorder
    /// Streams the client closed, for ``ChappieEmulator/nextClosedStream()``.
    let closedStreams = ClosedStreamLog()
    /// The key opaque output items are sealed with (``ChappieEmulator/rotateContentKey()``).
    let sealer = ContentSealer()
    /// Faults for the next WebSocket handshakes.
    let webSocketFaults = FaultQueue<ChappieEmulator.WebSocketFault>()
    /// Faults for the next refresh grants.
    let refreshFaults = FaultQueue<ChappieEmulator.RefreshFault>()
    /// The Sign in with ChatGPT issuer: keys, registrations, codes and tokens (SIWC.md §2).
    let signInWithChatGPT: SignInWithChatGPTStore
    /// Faults for the next SIWC token-endpoint requests, keyed by `grant_type` (nil = any grant).
    let signInWithChatGPTTokenFaults = FaultQueue<ChappieEmulator.SignInWithChatGPTTokenFault>()
    /// Faults for the next `POST /v1/responses` calls.
    let planUsageFaults = FaultQueue<ChappieEmulator.PlanUsageFault>()
    /// Whether the SIWC discovery document and key set answer 503.
    let signInWithChatGPTOutage = LockedBox((discovery: false, jwks: false))
    private let portBox = LockedBox(0)
    private let tlsPortBox = LockedBox<Int?>(nil)

    /// Creates fresh state for `configuration`.
    init(configuration: ChappieEmulator.Configuration) {
        self.configuration = configuration
        self.deviceAuthorizations = DeviceAuthorizationStore(
            lifetime: configuration.deviceCodeLifetime,
            autoApproveAfterPolls: configuration.autoApproveAfterPolls
        )
        self.tokens = TokenStore(account: configuration.account, accessTokenLifetime: configuration.accessTokenLifetime)
        self.replies = FaultQueue()
        self.usage = UsageMeter(percentPerResponse: configuration.usagePercentPerResponse)
        self.recorder = RequestRecorder()
        self.signInWithChatGPT = SignInWithChatGPTStore(
            user: configuration.account, userName: configuration.signInWithChatGPT.userName
        )
    }

    /// The bound port, known once the socket is bound (0 before).
    var port: Int { portBox.withLock { $0 } }

    /// The issuer base URL, `http://127.0.0.1:<port>`, known once the socket is bound.
    var issuer: String { "http://127.0.0.1:\(port)" }

    /// Records the bound port.
    func setPort(_ port: Int) { portBox.withLock { $0 = port } }

    /// The port of the TLS front end (``ChappieEmulator/startTLS()``), nil without one.
    var tlsPort: Int? { tlsPortBox.withLock { $0 } }

    /// Records the TLS front end's port.
    func setTLSPort(_ port: Int) { tlsPortBox.withLock { $0 = port } }
}
