import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The servers Chappie talks to: the OAuth issuer, the ChatGPT backend and the public API.
///
/// Defaults are the real hosts: `https://auth.openai.com` for sign-in (both the device-code flow
/// and Sign in with ChatGPT), token and revoke endpoints; `https://chatgpt.com/backend-api` for a
/// device-code sign-in's model traffic (`/codex/responses`, `/codex/models`) and account data
/// (`/wham/usage`); and `https://api.openai.com/v1` for a Sign in with ChatGPT registration's
/// model traffic (`/responses`, `/models`). The credential's sign-in route picks the backend, never
/// a setting. The emulator hands out its own loopback URLs.
///
/// ## Where tokens may go
///
/// Two rules, both in ``validate()``:
/// - **Encrypted or local only.** Tokens, authorization codes and code verifiers travel to these
///   URLs, so the issuer, the backend and the WebSocket URL derived from the backend must use
///   `https` (`wss`), or plain `http` (`ws`) to this machine only: a literal loopback address
///   (`127.0.0.0/8`, `::1`) or `localhost`. A name such as `127.0.0.1.example.com` is not loopback:
///   it may resolve anywhere.
/// - **A ChatGPT sign-in stays with ChatGPT, and only it goes there.** With the OpenAI issuer, the
///   backend must be the OpenAI backend: a backend override alone (a stale environment variable, a
///   mistyped setting) would otherwise send the user's ChatGPT tokens to another server. And with
///   another issuer, the backend must not be the OpenAI backend: an issuer override alone would
///   send that server's tokens to ChatGPT. Point both at the other server instead; a
///   configuration with another issuer keeps its credential in a slot of its own
///   (``ChappieConfiguration/credentialKey``), so it never sees the ChatGPT sign-in.
///
/// The rules are checked at first use, not at construction: the initializer and the properties
/// stay non-throwing (a throwing initializer would break every existing caller, and assigning a
/// property or decoding from JSON would bypass it anyway). Every sign-in and every backend
/// request checks both rules, and every token refresh and revocation checks the issuer, before
/// anything leaves the process; a violation fails with ``ChappieAuthError/insecureEndpoint(_:)``
/// or ``ChappieClientError/insecureEndpoint(_:)`` (a revocation is skipped).
/// Call ``validate()`` yourself to report a bad setting earlier.
public struct ChappieEndpoints: Sendable, Hashable, Codable {
    /// Base URL of the OAuth issuer, e.g. `https://auth.openai.com`.
    public var authIssuer: URL
    /// Base URL of the backend API, e.g. `https://chatgpt.com/backend-api`.
    public var backend: URL
    /// Base URL of the public Responses API that a Sign in with ChatGPT registration uses, e.g.
    /// `https://api.openai.com/v1`. Unless set, it follows ``authIssuer``: `https://api.openai.com/v1`
    /// with the OpenAI issuer, else the issuer's `/v1` (where the emulator serves it), so changing
    /// only the issuer never leaves the public API pointing at another server.
    public var apiBase: URL {
        get { apiBaseOverride ?? Self.defaultAPIBase(forIssuer: authIssuer) }
        set { apiBaseOverride = newValue }
    }
    /// The ``apiBase`` set explicitly, if any.
    private var apiBaseOverride: URL?

    /// Creates endpoints from an issuer, a backend base URL and, optionally, the public API's base
    /// URL. Without `apiBase`: `https://api.openai.com/v1` with the OpenAI issuer, else the
    /// issuer's `/v1` (where the emulator serves it). Nothing is checked here: see ``validate()``
    /// for when and how the URLs are checked.
    public init(authIssuer: URL, backend: URL, apiBase: URL? = nil) {
        self.authIssuer = authIssuer
        self.backend = backend
        self.apiBaseOverride = apiBase
    }

    /// The real OpenAI hosts.
    public static let openAI = ChappieEndpoints(
        authIssuer: URL(string: "https://auth.openai.com")!,
        backend: URL(string: "https://chatgpt.com/backend-api")!
    )

    /// Endpoints are equal when they name the same three URLs (an ``apiBase`` set to its default
    /// equals one left unset).
    public static func == (lhs: ChappieEndpoints, rhs: ChappieEndpoints) -> Bool {
        lhs.authIssuer == rhs.authIssuer && lhs.backend == rhs.backend && lhs.apiBase == rhs.apiBase
    }

    /// Hashes the three URLs that ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(authIssuer)
        hasher.combine(backend)
        hasher.combine(apiBase)
    }

    /// The public API base that goes with `issuer` when none is given.
    static func defaultAPIBase(forIssuer issuer: URL) -> URL {
        origin(of: issuer) == "https://auth.openai.com:443" ? URL(string: "https://api.openai.com/v1")! : issuer.appending(path: "v1")
    }

    private enum CodingKeys: String, CodingKey { case authIssuer, backend, apiBase }

    /// Encodes the issuer, the backend and, when set explicitly, ``apiBase``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(authIssuer, forKey: .authIssuer)
        try container.encode(backend, forKey: .backend)
        try container.encodeIfPresent(apiBaseOverride, forKey: .apiBase)
    }

    /// Decodes endpoints; data written before ``apiBase`` existed gets the default for its issuer.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let issuer = try container.decode(URL.self, forKey: .authIssuer)
        self.init(authIssuer: issuer, backend: try container.decode(URL.self, forKey: .backend),
                  apiBase: try container.decodeIfPresent(URL.self, forKey: .apiBase))
    }

    /// Which of the endpoints a ``ChappieEndpointError`` is about.
    public enum Role: String, Sendable, Hashable, CaseIterable {
        /// The OAuth issuer (``ChappieEndpoints/authIssuer``).
        case authIssuer = "auth issuer"
        /// The backend (``ChappieEndpoints/backend``).
        case backend
        /// The Responses WebSocket URL derived from the backend (`https` → `wss`, `http` → `ws`).
        case webSocket = "WebSocket"
        /// The public API (``ChappieEndpoints/apiBase``).
        case apiBase = "API"
    }

    /// Checks both rules of ``ChappieEndpoints`` ("Where tokens may go"): every URL is `https`/`wss`
    /// or plain to loopback, and the OpenAI issuer goes with the OpenAI backend and no other.
    /// Throws ``ChappieEndpointError``; the SDK calls it before every request that carries a secret.
    public func validate() throws(ChappieEndpointError) {
        if let violation { throw violation }
    }

    /// The first rule these endpoints break, or nil when tokens may go to them (``validate()``).
    var violation: ChappieEndpointError? {
        for (role, url) in [(Role.authIssuer, authIssuer), (.backend, backend), (.webSocket, responsesWebSocket), (.apiBase, apiBase)]
        where !Self.allowsSecrets(to: url) {
            return .insecureTransport(role: role, origin: Self.origin(of: url))
        }
        let openAIIssuer = Self.origin(of: authIssuer) == Self.origin(of: Self.openAI.authIssuer)
        let openAIBackend = Self.base(of: backend) == Self.base(of: Self.openAI.backend)
        let openAIAPI = Self.origin(of: apiBase) == Self.origin(of: Self.openAI.apiBase)
        if openAIIssuer, !openAIBackend { return .backendNotOfIssuer(backend: Self.origin(of: backend)) }
        if openAIIssuer, !openAIAPI { return .backendNotOfIssuer(backend: Self.origin(of: apiBase)) }
        if !openAIIssuer, openAIBackend || openAIAPI {
            return .issuerNotOfBackend(issuer: Self.origin(of: authIssuer))
        }
        return nil
    }

    /// The issuer's part of ``violation``: whether the issuer itself may receive secrets (codes,
    /// verifiers, refresh tokens), whatever the backend.
    var issuerViolation: ChappieEndpointError? {
        Self.allowsSecrets(to: authIssuer) ? nil : .insecureTransport(role: .authIssuer, origin: Self.origin(of: authIssuer))
    }

    /// Whether a token may be sent to `url`: true for `https` and `wss`, and for `http` and `ws`
    /// only when the host is a literal loopback address (`127.0.0.0/8`, `::1`) or `localhost`.
    /// Every other scheme is false. The one implementation of the rule, used by the CLI too.
    public static func allowsSecrets(to url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else { return false }
        switch scheme {
        case Wire.https, Wire.wss: return true
        case Wire.http, Wire.ws: return isLoopback(host: host)
        default: return false
        }
    }

    /// Whether `host` names this machine without a name lookup: `localhost`, a dotted-quad IPv4
    /// literal in `127.0.0.0/8`, or the IPv6 literal `::1` (with or without brackets).
    static func isLoopback(host: String) -> Bool {
        var bare = host.lowercased()
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
        if bare == Wire.localhost { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, bare, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
        }
        return false
    }

    /// `scheme://host:port` with the scheme and host lower-cased and the default port spelled
    /// out: what identifies a server. No user info, path or query, so it is safe in a message.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        var host = url.host?.lowercased() ?? ""
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        let port = url.port ?? Wire.defaultPorts[scheme]
        return "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "")
    }

    /// ``origin(of:)`` plus the path without a trailing slash: what identifies a base URL.
    static func base(of url: URL) -> String {
        var path = url.path
        while path.hasSuffix("/") { path.removeLast() }
        return origin(of: url) + path
    }

    /// The WebSocket form of `url`: `https` becomes `wss`, `http` becomes `ws` (PROTOCOL §6);
    /// any other scheme is kept, so ``allowsSecrets(to:)`` refuses it.
    static func webSocketURL(for url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        switch components.scheme?.lowercased() {
        case Wire.https: components.scheme = Wire.wss
        case Wire.http: components.scheme = Wire.ws
        default: break
        }
        return components.url ?? url
    }

    /// `POST` here to request a user code (PROTOCOL §1.1).
    var deviceUserCode: URL { authIssuer.appending(path: "api/accounts/deviceauth/usercode") }
    /// `POST` here to poll for the authorization (PROTOCOL §1.2).
    var deviceToken: URL { authIssuer.appending(path: "api/accounts/deviceauth/token") }
    /// The page where the user enters the code (PROTOCOL §1.1).
    var verification: URL { authIssuer.appending(path: "codex/device") }
    /// The redirect URI bound to device-flow authorization codes (PROTOCOL §1.3).
    var deviceRedirect: URL { authIssuer.appending(path: "deviceauth/callback") }
    /// The OAuth token endpoint (PROTOCOL §1.3, §2.1).
    var token: URL { authIssuer.appending(path: "oauth/token") }
    /// The OAuth revocation endpoint (PROTOCOL §2.6).
    var revoke: URL { authIssuer.appending(path: "oauth/revoke") }
    /// `POST` Responses requests here (PROTOCOL §4.1).
    var responses: URL { backend.appending(path: "codex/responses") }
    /// The Responses WebSocket: ``responses`` with `wss` (or `ws`) (PROTOCOL §6).
    var responsesWebSocket: URL { Self.webSocketURL(for: responses) }
    /// `POST` remote compaction requests here (PROTOCOL §9).
    var compact: URL { backend.appending(path: "codex/responses/compact") }
    /// `GET` the model catalog here (PROTOCOL §8).
    var models: URL { backend.appending(path: "codex/models") }
    /// `GET` the usage snapshot here (PROTOCOL §7.2).
    var usage: URL { backend.appending(path: "wham/usage") }

    private enum Wire {
        static let https = "https"
        static let http = "http"
        static let wss = "wss"
        static let ws = "ws"
        static let localhost = "localhost"
        static let defaultPorts = ["https": 443, "wss": 443, "http": 80, "ws": 80]
    }
}

/// Why ``ChappieEndpoints`` may not carry a token (its "Where tokens may go" rules).
/// Messages name the server (`scheme://host:port`), never a path, query or user info.
public enum ChappieEndpointError: Error, Sendable, Hashable, LocalizedError, CustomStringConvertible {
    /// The endpoint in `role`, at `origin`, is neither `https` nor plain `http` to a loopback address.
    case insecureTransport(role: ChappieEndpoints.Role, origin: String)
    /// The OpenAI issuer is paired with another backend (at `backend`), which would receive the
    /// user's ChatGPT tokens.
    case backendNotOfIssuer(backend: String)
    /// Another issuer (at `issuer`) is paired with the OpenAI backend, which would receive that
    /// issuer's tokens.
    case issuerNotOfBackend(issuer: String)

    /// One line saying what is wrong and how to fix it.
    public var errorDescription: String? {
        switch self {
        case .insecureTransport(let role, let origin):
            "The \(role.rawValue) \(origin) must use https: plain http would send tokens unencrypted "
                + "(http is allowed only for localhost, 127.0.0.0/8 and ::1)."
        case .backendNotOfIssuer(let backend):
            "The backend \(backend) is not ChatGPT's, so a ChatGPT sign-in is not sent there: "
                + "point the auth issuer at the same server to sign in there."
        case .issuerNotOfBackend(let issuer):
            "The auth issuer \(issuer) is not OpenAI's, so its sign-in is not sent to ChatGPT's backend: "
                + "point the backend at the same server."
        }
    }

    /// What to change, one sentence.
    public var recoverySuggestion: String? {
        switch self {
        case .insecureTransport: "Use an https address, or plain http only to this machine."
        case .backendNotOfIssuer, .issuerNotOfBackend: "Point the backend and the auth issuer at the same server."
        }
    }

    /// Same as ``errorDescription``.
    public var description: String { errorDescription ?? "insecure endpoint" }
}
