import Foundation

/// Everything that governs one signed-in user's use of Chappie. Build the auth session and the
/// client from the same configuration: they find the credential through
/// (`credentialStore`, ``credentialKey``), the key being (`keychainService`, `keychainAccount`)
/// qualified by the issuer when it is not OpenAI's.
public struct ChappieConfiguration: Sendable {
    /// Namespace of the stored credential (Keychain service on Apple platforms, folder on Linux);
    /// qualified by the issuer when it is not OpenAI's (see ``credentialKey``). Default
    /// ``defaultKeychainService``, derived from the app's bundle identifier or executable name.
    public var keychainService: String
    /// Credential slot inside the service; use one per app user to keep accounts apart.
    public var keychainAccount: String
    /// Keychain access group shared between apps, e.g. `TEAMID.com.example.shared`; nil = app's own.
    public var keychainAccessGroup: String?
    /// When the Keychain item may be read. Ignored by the Linux stores.
    public var keychainAccessibility: ChappieKeychainAccessibility
    /// Model slug sent with each request.
    public var model: String
    /// The harness injected at the start of every conversation.
    public var harness: ChappieHarness
    /// Waits and retries after HTTP 429.
    public var rateLimitBackoff: ChappieRateLimitBackoffPolicy
    /// WebSocket-first or HTTP/SSE-only streaming.
    public var streamingTransportPolicy: ChappieStreamingTransportPolicy
    /// The auth issuer and backend base URLs; the real OpenAI hosts by default.
    public var endpoints: ChappieEndpoints
    /// Where the credential lives. Default: the Keychain on Apple platforms, the file store on Linux;
    /// on Linux desktops pass `ChappieSecretServiceCredentialStore()` to use the keyring instead.
    public var credentialStore: any ChappieCredentialStore
    /// Value of the `originator` header that identifies the calling app to the backend.
    public var originator: String
    /// Seconds with no bytes from the server before a stream fails with an idle timeout.
    public var streamIdleTimeout: TimeInterval
    /// Seconds from sending a request until the response head must arrive (connect, TLS, the
    /// server's first answer); a server that accepts the connection and never answers fails
    /// after this, not after ``streamIdleTimeout``, and is not asked again (a refused
    /// connection or a 5xx answer is retried twice). Default 30.
    public var responseHeadTimeout: TimeInterval = 30
    /// Most tool-call rounds in one turn before ``ChappieClientError/toolLoopLimitExceeded(_:)``.
    public var maximumToolRounds: Int
    /// When true, a denied `.ask` tool call ends the turn with
    /// ``ChappieClientError/toolApprovalDenied(_:_:)``; when false (the default) the model is told
    /// the call was denied and may answer without it.
    public var stopsOnToolDenial: Bool
    /// Lets the model search the web (the backend's `web_search` tool) on every turn whose model
    /// supports it (``ChappieModel/supportsSearchTool``); a model that does not is sent the turn
    /// without it. Off by default; ``ChappieMessageOptions/webSearch`` overrides it per message.
    /// Search steps stream as ``ChappieStreamEvent/webSearch(_:)`` and the sources the reply cites
    /// are in ``ChappieResponse/citations``.
    public var webSearch = false
    /// Where the SDK's structured log events go; nil (the default) logs nothing.
    public var logSink: (any ChappieLogSink)?

    /// Creates a configuration; every parameter has the documented default.
    public init(
        keychainService: String = ChappieConfiguration.defaultKeychainService,
        keychainAccount: String = "default",
        keychainAccessGroup: String? = nil,
        keychainAccessibility: ChappieKeychainAccessibility = .whenUnlockedThisDeviceOnly,
        model: String = ChappieClient.defaultModel,
        harness: ChappieHarness = .default,
        rateLimitBackoff: ChappieRateLimitBackoffPolicy = .default,
        streamingTransportPolicy: ChappieStreamingTransportPolicy = .default,
        endpoints: ChappieEndpoints = .openAI,
        credentialStore: (any ChappieCredentialStore)? = nil,
        originator: String = "chappie_sdk",
        streamIdleTimeout: TimeInterval = 300,
        maximumToolRounds: Int = 8,
        stopsOnToolDenial: Bool = false,
        logSink: (any ChappieLogSink)? = nil
    ) {
        self.keychainService = keychainService
        self.keychainAccount = keychainAccount
        self.keychainAccessGroup = keychainAccessGroup
        self.keychainAccessibility = keychainAccessibility
        self.model = model
        self.harness = harness
        self.rateLimitBackoff = rateLimitBackoff
        self.streamingTransportPolicy = streamingTransportPolicy
        self.endpoints = endpoints
        self.credentialStore = credentialStore ?? ChappieConfiguration.platformDefaultStore(
            accessGroup: keychainAccessGroup, accessibility: keychainAccessibility)
        self.originator = originator
        self.streamIdleTimeout = streamIdleTimeout
        self.maximumToolRounds = max(1, maximumToolRounds)
        self.stopsOnToolDenial = stopsOnToolDenial
        self.logSink = logSink
    }

    /// The SDK's logger for this configuration.
    var logger: Logger { Logger(sink: logSink) }

    /// The credential slot this configuration reads and writes: (`keychainService`,
    /// `keychainAccount`) with the OpenAI issuer. With any other issuer the service is qualified by
    /// that issuer, `<keychainService>.issuer.<scheme>://<host>:<port><path>` (for an emulator
    /// `com.example.notes.chappie.issuer.http://127.0.0.1:8765`), so a sign-in through an emulator or a proxy
    /// never replaces the ChatGPT sign-in, and the ChatGPT tokens are never sent to another issuer
    /// or its backend. Seed test credentials under this key.
    public var credentialKey: ChappieCredentialKey {
        let issuer = ChappieEndpoints.base(of: endpoints.authIssuer)
        guard issuer != ChappieEndpoints.base(of: ChappieEndpoints.openAI.authIssuer) else {
            return ChappieCredentialKey(service: keychainService, account: keychainAccount)
        }
        return ChappieCredentialKey(service: keychainService + Wire.issuerQualifier + issuer, account: keychainAccount)
    }

    /// The store a configuration uses when none is given.
    static func platformDefaultStore(
        accessGroup: String?, accessibility: ChappieKeychainAccessibility
    ) -> any ChappieCredentialStore {
        #if canImport(Security)
        ChappieKeychainCredentialStore(accessGroup: accessGroup, accessibility: accessibility)
        #else
        ChappieFileCredentialStore.shared
        #endif
    }

    private enum Wire {
        /// Joins the service and the issuer in ``credentialKey``.
        static let issuerQualifier = ".issuer."
    }
}
