import ChappieTransport
import Foundation

/// Verifies a Sign in with ChatGPT ID token (OpenID Connect Core 1.0 §3.1.3.7; SIWC.md §2.7):
/// an RS256 signature by a key of the issuer's JWKS (fetched again once when the `kid` is
/// unknown), `iss` equal to the issuer, `aud` (a string or an array) containing the issued client
/// id, `azp` equal to it when present (required when `aud` holds several values), `exp` and `iat`
/// within ``clockSkew``, the `nonce` sent with the request, and on a returning account the same
/// `sub`.
struct IDTokenVerifier: Sendable {
    let discovery: OpenIDDiscovery
    let transport: any HTTPTransport
    let time: ChappieTimeSource

    /// Tolerated clock difference with the issuer, in seconds (OpenAI's reference code uses 5 s).
    static let clockSkew: TimeInterval = 5

    /// The verified claims that matter.
    struct Identity: Sendable, Equatable {
        let subject: String
        let email: String?
        let name: String?
    }

    /// Checks `token`. `nonce` nil skips the nonce check (a refresh); `subject` non-nil requires
    /// that `sub`. Throws ``ChappieAuthError/invalidIDToken(_:)``,
    /// ``ChappieAuthError/accountMismatch`` or, when the keys cannot be fetched,
    /// ``ChappieAuthError/identityVerificationUnavailable(_:)``.
    func verify(_ token: String, clientID: String, nonce: String?, subject: String?) async throws -> Identity {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let payloadData = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = (try? ChappieJSONValue(jsonData: headerData))?.objectValue,
              let claims = (try? ChappieJSONValue(jsonData: payloadData))?.objectValue
        else { throw ChappieAuthError.invalidIDToken(.malformed) }
        guard header[Wire.alg]?.stringValue == Wire.rs256 else { throw ChappieAuthError.invalidIDToken(.unsupportedAlgorithm) }
        let kid = header[Wire.kid]?.stringValue
        let key = try await JWKSCache.key(id: kid, jwksURI: discovery.jwksURI, transport: transport)
        guard key.verifiesRS256(signature: Array(signature), message: Array("\(parts[0]).\(parts[1])".utf8)) else {
            throw ChappieAuthError.invalidIDToken(.badSignature)
        }
        guard claims[Wire.iss]?.stringValue == discovery.issuer else { throw ChappieAuthError.invalidIDToken(.wrongIssuer) }
        let audiences: [String]
        switch claims[Wire.aud] {
        case .string(let single)?: audiences = [single]
        case .array(let many)?: audiences = many.compactMap(\.stringValue)
        default: throw ChappieAuthError.invalidIDToken(.wrongAudience)
        }
        guard audiences.contains(clientID) else { throw ChappieAuthError.invalidIDToken(.wrongAudience) }
        let authorizedParty = claims[Wire.azp]?.stringValue
        if let authorizedParty, authorizedParty != clientID { throw ChappieAuthError.invalidIDToken(.wrongAuthorizedParty) }
        if audiences.count > 1, authorizedParty == nil { throw ChappieAuthError.invalidIDToken(.wrongAuthorizedParty) }
        guard let expiry = claims[Wire.exp]?.doubleValue, let issuedAt = claims[Wire.iat]?.doubleValue else {
            throw ChappieAuthError.invalidIDToken(.missingClaim)
        }
        let now = time.now().timeIntervalSince1970
        guard now < expiry + Self.clockSkew else { throw ChappieAuthError.invalidIDToken(.expired) }
        guard issuedAt <= now + Self.clockSkew else { throw ChappieAuthError.invalidIDToken(.issuedInFuture) }
        if let nonce, claims[Wire.nonce]?.stringValue != nonce { throw ChappieAuthError.invalidIDToken(.wrongNonce) }
        guard let sub = claims[Wire.sub]?.stringValue, !sub.isEmpty else { throw ChappieAuthError.invalidIDToken(.missingClaim) }
        if let subject, subject != sub { throw ChappieAuthError.accountMismatch }
        return Identity(subject: sub, email: claims[Wire.email]?.stringValue, name: claims[Wire.name]?.stringValue)
    }

    private enum Wire {
        static let alg = "alg"
        static let rs256 = "RS256"
        static let kid = "kid"
        static let iss = "iss"
        static let aud = "aud"
        static let azp = "azp"
        static let exp = "exp"
        static let iat = "iat"
        static let nonce = "nonce"
        static let sub = "sub"
        static let email = "email"
        static let name = "name"
    }
}

/// The issuer's signing keys (RFC 7517 §5), cached per JWKS URL for the process and fetched again
/// once when a token names a `kid` the cache does not hold (the issuer rotated its keys).
enum JWKSCache {
    private static let keys = LockedBox<[String: [String: RSAPublicKey]]>([:])

    /// The RS256 key `id` (any key when the token names none and the set holds exactly one).
    /// Throws ``ChappieAuthError/invalidIDToken(_:)`` (`.unknownKey`) when it is not in the
    /// freshly fetched set, or ``ChappieAuthError/identityVerificationUnavailable(_:)`` when the
    /// set cannot be fetched.
    static func key(id: String?, jwksURI: URL, transport: any HTTPTransport) async throws -> RSAPublicKey {
        guard RSAPublicKey.verifierAvailable else {
            throw ChappieAuthError.identityVerificationUnavailable("the system's RSA verifier (libcrypto) could not be loaded")
        }
        let name = jwksURI.absoluteString
        if let cached = keys.withLock({ $0[name] }), let key = pick(id, from: cached) { return key }
        let fetched = try await fetch(jwksURI, transport: transport)
        keys.withLock { $0[name] = fetched }
        guard let key = pick(id, from: fetched) else { throw ChappieAuthError.invalidIDToken(.unknownKey) }
        return key
    }

    private static func pick(_ id: String?, from set: [String: RSAPublicKey]) -> RSAPublicKey? {
        if let id { return set[id] }
        return set.count == 1 ? set.values.first : nil
    }

    private static func fetch(_ url: URL, transport: any HTTPTransport) async throws -> [String: RSAPublicKey] {
        let request = HTTPRequest(method: .get, url: url, headers: ["Accept": "application/json"], idleTimeout: 30,
                                  deadline: SIWCTokenEndpoint.tokenDeadline)
        let response: HTTPResponse
        do { response = try await transport.send(request, maximumBytes: 256 << 10) }
        catch let error as TransportError { throw ChappieAuthError.identityVerificationUnavailable(error.message(at: request.url)) }
        guard (200..<300).contains(response.head.status) else {
            throw ChappieAuthError.identityVerificationUnavailable("the signing keys answered HTTP \(response.head.status)")
        }
        guard let entries = (try? ChappieJSONValue(jsonData: response.body))?.objectValue?[Wire.keys]?.arrayValue else {
            throw ChappieAuthError.identityVerificationUnavailable("the signing keys are not a JWK set")
        }
        var set: [String: RSAPublicKey] = [:]
        for case .object(let entry) in entries where entry[Wire.kty]?.stringValue == Wire.rsa {
            if let use = entry[Wire.use]?.stringValue, use != Wire.sig { continue }
            if let alg = entry[Wire.alg]?.stringValue, alg != Wire.rs256 { continue }
            guard let n = entry[Wire.n]?.stringValue, let e = entry[Wire.e]?.stringValue,
                  let key = RSAPublicKey(modulus: n, exponent: e) else { continue }
            set[entry[Wire.kid]?.stringValue ?? ""] = key
        }
        return set
    }

    /// Forgets the cached keys of `jwksURI` (tests).
    static func forget(_ jwksURI: URL) { _ = keys.withLock { $0.removeValue(forKey: jwksURI.absoluteString) } }

    private enum Wire {
        static let keys = "keys"
        static let kty = "kty"
        static let rsa = "RSA"
        static let use = "use"
        static let sig = "sig"
        static let alg = "alg"
        static let rs256 = "RS256"
        static let n = "n"
        static let e = "e"
        static let kid = "kid"
    }
}
