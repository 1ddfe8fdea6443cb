@testable import ChappieCore
@testable import ChappieTransport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A scripted Sign in with ChatGPT issuer over ``ScriptedTransport``: discovery, JWKS, the token
/// endpoint (code exchange and refresh) and revocation, each adjustable per test, plus a
/// "browser" that answers the authorize URL by calling the SDK's loopback listener.
final class SIWCTestIssuer: @unchecked Sendable {
    struct Settings: Sendable {
        var issuedClientID = "oaiapp_test_0001"
        var subject = "user-sub-1"
        var email = "user@example.com"
        var grantedScope = "openid profile email offline_access resource.invoke chatgpt.tokens.use.direct"
        var exchangeError: (status: Int, code: String)?
        var refreshError: (status: Int, code: String)?
        var discoveryDown = false
        var jwksDown = false
        var revokeStatus = 200
        var revokeFails = false
        /// Requests to this path never get an answer (``SIWCTestIssuer/stalled``).
        var stalledPath: String?
        var publishedKeys: [TestSigningKey] = [.primary]
        /// Signs the ID token with this key (default: the first published one).
        var signingKey: TestSigningKey = .primary
        var signingKid: String?
        /// Changes the ID token's claims before signing.
        var editClaims: @Sendable (inout [String: ChappieJSONValue]) -> Void = { _ in }
    }

    let issuer: URL
    let transport: ScriptedTransport
    private let box: LockedBox<Settings>
    private let counter = LockedBox(0)
    private let lastNonce = LockedBox<String?>(nil)
    let time: ChappieTimeSource
    /// Stalls the requests to ``Settings/stalledPath``; its deadlines fire on cue.
    let stalled = StalledServer()

    init(_ settings: Settings = Settings(), time: ChappieTimeSource = .system) {
        let issuer = URL(string: "https://auth-\(UUID().uuidString.lowercased().prefix(8)).siwc.test")!
        self.issuer = issuer
        self.time = time
        let box = LockedBox(settings)
        self.box = box
        let counter = counter
        let lastNonce = lastNonce
        let stalled = stalled
        transport = ScriptedTransport { request, _ in
            let settings = box.withLock { $0 }
            let origin = issuer.absoluteString
            if request.url.path == settings.stalledPath {
                await stalled.neverAnswer()
                return .failing(.network(message: "cancelled while waiting for an answer", mayHaveReachedServer: true))
            }
            switch request.url.path {
            case "/.well-known/openid-configuration":
                if settings.discoveryDown { return .failing(.network(message: "connection refused", mayHaveReachedServer: false)) }
                return .json(200, """
                    {"issuer":"\(origin)","authorization_endpoint":"\(origin)/api/accounts/authorize",
                     "token_endpoint":"\(origin)/api/accounts/oauth/token","jwks_uri":"\(origin)/.well-known/jwks.json",
                     "revocation_endpoint":"\(origin)/api/accounts/oauth/revoke","response_types_supported":["code"]}
                    """)
            case "/.well-known/jwks.json":
                if settings.jwksDown { return .json(503, "{}") }
                return .json(200, ChappieJSONValue.object(["keys": .array(settings.publishedKeys.map(\.jwk))]).jsonString)
            case "/api/accounts/oauth/token":
                let form = SIWCTestIssuer.form(request.bodyText)
                let refreshing = form["grant_type"] == "refresh_token"
                if let error = refreshing ? settings.refreshError : settings.exchangeError {
                    return .json(error.status, #"{"error":"\#(error.code)","error_description":"nope"}"#)
                }
                let serial = counter.withLock { $0 += 1; return $0 }
                let now = time.now().timeIntervalSince1970
                var claims: [String: ChappieJSONValue] = [
                    "iss": .string(origin), "aud": .array([.string(settings.issuedClientID)]), "sub": .string(settings.subject),
                    "email": .string(settings.email), "iat": .number(now), "exp": .number(now + 3600),
                ]
                if !refreshing, let nonce = lastNonce.withLock({ $0 }) { claims["nonce"] = .string(nonce) }
                settings.editClaims(&claims)
                let idToken = settings.signingKey.sign(.object(claims), kid: settings.signingKid)
                return .json(200, ChappieJSONValue.object([
                    "access_token": .string("at_siwc_secret_\(serial)_0123456789abcdef"),
                    "refresh_token": .string("rt_siwc_secret_\(serial)_0123456789abcdef"),
                    "id_token": .string(idToken), "token_type": "Bearer", "expires_in": 3600,
                    "scope": .string(settings.grantedScope),
                ]).jsonString)
            case "/api/accounts/oauth/revoke":
                if settings.revokeFails { return .failing(.network(message: "connection reset", mayHaveReachedServer: true)) }
                return Reply(status: settings.revokeStatus, chunks: [])
            default:
                return .json(404, "{}")
            }
        }
    }

    typealias Reply = ScriptedTransport.Reply

    func update(_ change: (inout Settings) -> Void) { box.withLock { change(&$0) } }

    /// A configuration for this issuer with an in-memory store of its own.
    func configuration(account: String = "default", store: ChappieInMemoryCredentialStore = ChappieInMemoryCredentialStore()) -> ChappieConfiguration {
        ChappieConfiguration(keychainAccount: account, endpoints: ChappieEndpoints(authIssuer: issuer, backend: issuer.appending(path: "backend-api")),
                             credentialStore: store)
    }

    /// Parses a form body.
    static func form(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            result[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return result
    }

    /// The query of an authorize URL.
    static func query(_ url: URL) -> [String: String] {
        var result: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] { result[item.name] = item.value ?? "" }
        return result
    }

    /// Remembers the nonce of `authorizeURL` so the next ID token carries it.
    func noteAuthorize(_ authorizeURL: URL) {
        let nonce = Self.query(authorizeURL)["nonce"]
        lastNonce.withLock { $0 = nonce }
    }

    /// The callback the real issuer would redirect to after approval.
    func approvalCallback(for authorizeURL: URL, includeClientID: Bool? = nil) -> String {
        let query = Self.query(authorizeURL)
        let newRegistration = query["client_id"] == "dynamic_agent_client"
        let clientID = box.withLock { $0.issuedClientID }
        var target = "/auth/callback?code=ac_test_code_0123456789&scope=openid+email&state=\(query["state"] ?? "")"
        if includeClientID ?? newRegistration { target += "&client_id=\(clientID)" }
        return target
    }
}

/// Sends one raw HTTP request to the loopback listener and returns the status code (0 when the
/// connection failed) and the response text.
func sendToListener(port: UInt16, target: String, method: String = "GET", host: String? = nil, extraHeaders: [String] = []) -> (status: Int, text: String) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = port.bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { return (0, "") }
    let head = (["\(method) \(target) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")"] + extraHeaders + ["Connection: close", "", ""])
        .joined(separator: "\r\n")
    _ = head.withCString { send(descriptor, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    var received = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(descriptor, &buffer, buffer.count)
        if count <= 0 { break }
        received += buffer[..<count]
    }
    let text = String(decoding: received, as: UTF8.self)
    let status = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return (status, text)
}

/// The port of an authorize URL's redirect URI.
func redirectPort(_ authorizeURL: URL) -> UInt16 {
    let redirect = URL(string: SIWCTestIssuer.query(authorizeURL)["redirect_uri"] ?? "")!
    return UInt16(redirect.port ?? 0)
}

/// ``sendToListener(port:target:method:host:extraHeaders:)`` on a thread of its own, so the
/// blocking socket calls never hold a task thread.
func browserRequest(port: UInt16, target: String, method: String = "GET", host: String? = nil,
                    extraHeaders: [String] = []) async -> (status: Int, text: String) {
    await withCheckedContinuation { continuation in
        Thread {
            continuation.resume(returning: sendToListener(port: port, target: target, method: method, host: host, extraHeaders: extraHeaders))
        }.start()
    }
}
