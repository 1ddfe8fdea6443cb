import ChappieTransport
import Foundation

/// The OpenID Provider metadata a Sign in with ChatGPT sign-in uses (OpenID Connect Discovery 1.0
/// §3, read from `<issuer>/.well-known/openid-configuration`; SIWC.md §2.1).
///
/// Checked as OpenAI's reference code checks it: `issuer` equals the configured issuer exactly, and
/// every endpoint has the issuer's origin, so a tampered document cannot send a code, a verifier or
/// a refresh token anywhere else. `revocation_endpoint` may be absent.
struct OpenIDDiscovery: Sendable, Equatable {
    let issuer: String
    let authorizationEndpoint: URL
    let tokenEndpoint: URL
    let jwksURI: URL
    let revocationEndpoint: URL?

    /// Where the document lives for `issuer`.
    static func documentURL(for issuer: URL) -> URL {
        issuer.appending(path: ".well-known/openid-configuration")
    }

    /// The configured issuer as the `iss` claim and the document's `issuer` spell it: no trailing slash.
    static func issuerIdentifier(_ issuer: URL) -> String {
        var text = issuer.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// Parses and checks a discovery document for `expectedIssuer`.
    /// Throws ``ChappieAuthError/invalidResponse(_:)`` when it is not a valid document for it.
    init(document data: Data, expectedIssuer: URL) throws {
        guard let object = (try? ChappieJSONValue(jsonData: data))?.objectValue else {
            throw ChappieAuthError.invalidResponse("the discovery document is not JSON")
        }
        let issuer = Self.issuerIdentifier(expectedIssuer)
        guard object[Wire.issuer]?.stringValue == issuer else {
            throw ChappieAuthError.invalidResponse("the discovery document names another issuer")
        }
        let origin = ChappieEndpoints.origin(of: expectedIssuer)
        func endpoint(_ name: String, required: Bool = true) throws -> URL? {
            guard let text = object[name]?.stringValue else {
                if required { throw ChappieAuthError.invalidResponse("the discovery document lacks \(name)") }
                return nil
            }
            guard let url = URL(string: text), url.host != nil, ChappieEndpoints.origin(of: url) == origin,
                  url.user == nil, url.password == nil
            else { throw ChappieAuthError.invalidResponse("the discovery document's \(name) is not on the issuer's origin") }
            return url
        }
        self.issuer = issuer
        authorizationEndpoint = try endpoint(Wire.authorizationEndpoint)!
        tokenEndpoint = try endpoint(Wire.tokenEndpoint)!
        jwksURI = try endpoint(Wire.jwksURI)!
        revocationEndpoint = try endpoint(Wire.revocationEndpoint, required: false)
    }

    /// Fetches and checks the document. An unreachable issuer, a non-2xx answer or one that takes
    /// longer than ``SIWCTokenEndpoint/tokenDeadline`` in all is
    /// ``ChappieAuthError/identityVerificationUnavailable(_:)`` (retryable); a wrong document is
    /// ``ChappieAuthError/invalidResponse(_:)``.
    static func fetch(issuer: URL, transport: any HTTPTransport) async throws -> OpenIDDiscovery {
        let request = HTTPRequest(method: .get, url: documentURL(for: issuer), headers: ["Accept": "application/json"],
                                  idleTimeout: 30, deadline: SIWCTokenEndpoint.tokenDeadline)
        let response: HTTPResponse
        do { response = try await transport.send(request, maximumBytes: 256 << 10) }
        catch let error as TransportError { throw ChappieAuthError.identityVerificationUnavailable(error.message(at: request.url)) }
        guard (200..<300).contains(response.head.status) else {
            throw ChappieAuthError.identityVerificationUnavailable("the discovery document answered HTTP \(response.head.status)")
        }
        return try OpenIDDiscovery(document: response.body, expectedIssuer: issuer)
    }

    /// Documents fetched in this process, per issuer: a refresh or a sign-out does not fetch again.
    private static let cache = LockedBox<[String: OpenIDDiscovery]>([:])

    /// The cached document for `issuer`, fetched on first use. Throws what ``fetch(issuer:transport:)`` throws.
    static func cached(issuer: URL, transport: any HTTPTransport) async throws -> OpenIDDiscovery {
        let key = issuerIdentifier(issuer)
        if let known = cache.withLock({ $0[key] }) { return known }
        let fetched = try await fetch(issuer: issuer, transport: transport)
        cache.withLock { $0[key] = fetched }
        return fetched
    }

    /// Caches `discovery` for `issuer` (a sign-in just fetched it).
    static func remember(_ discovery: OpenIDDiscovery, for issuer: URL) {
        cache.withLock { $0[issuerIdentifier(issuer)] = discovery }
    }

    /// Forgets the cached document of `issuer` (tests; an emulator restarted on the same port).
    static func forget(issuer: URL) {
        _ = cache.withLock { $0.removeValue(forKey: issuerIdentifier(issuer)) }
    }

    private enum Wire {
        static let issuer = "issuer"
        static let authorizationEndpoint = "authorization_endpoint"
        static let tokenEndpoint = "token_endpoint"
        static let jwksURI = "jwks_uri"
        static let revocationEndpoint = "revocation_endpoint"
    }
}
