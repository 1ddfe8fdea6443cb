import Foundation

/// The two servers Chappie talks to: the OAuth issuer and the ChatGPT backend.
///
/// Defaults are the real hosts (PROTOCOL §0): `https://auth.openai.com` for the device-code flow,
/// token and revoke endpoints, and `https://chatgpt.com/backend-api` for model traffic
/// (`/codex/responses`, `/codex/models`) and account data (`/wham/usage`). The emulator hands out
/// its own loopback URLs.
public struct ChappieEndpoints: Sendable, Hashable, Codable {
    /// Base URL of the OAuth issuer, e.g. `https://auth.openai.com`.
    public var authIssuer: URL
    /// Base URL of the backend API, e.g. `https://chatgpt.com/backend-api`.
    public var backend: URL

    /// Creates endpoints from an issuer and a backend base URL.
    public init(authIssuer: URL, backend: URL) {
        self.authIssuer = authIssuer
        self.backend = backend
    }

    /// The real OpenAI hosts.
    public static let openAI = ChappieEndpoints(
        authIssuer: URL(string: "https://auth.openai.com")!,
        backend: URL(string: "https://chatgpt.com/backend-api")!
    )

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
    /// `POST` remote compaction requests here (PROTOCOL §9).
    var compact: URL { backend.appending(path: "codex/responses/compact") }
    /// `GET` the model catalog here (PROTOCOL §8).
    var models: URL { backend.appending(path: "codex/models") }
    /// `GET` the usage snapshot here (PROTOCOL §7.2).
    var usage: URL { backend.appending(path: "wham/usage") }
}
