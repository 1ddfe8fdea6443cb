import ChappieEmulator
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Refuses every redirect, so a test sees the authorize endpoint's 302 itself.
private final class RefuseRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// The RFC 7636 Appendix B PKCE pair (verifier → S256 challenge), so tests need no SHA-256.
enum PKCEExample {
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
}

/// Drives the emulator's Sign in with ChatGPT issuer as an app would (SIWC.md §2.3–2.9).
struct SignInWithChatGPTClient: Sendable {
    let emulator: ChappieEmulator
    var http: EmulatorHTTPClient { EmulatorHTTPClient(emulator: emulator) }

    static let fullScope = "openid profile email offline_access resource.invoke chatgpt.tokens.use.direct"
    static let resource = "https://api.openai.com/v1"
    static let hostID = "urn:uuid:0f8e3a52-6c1d-4b7e-9a2f-3d4c5b6a7e8f"
    static let redirectURI = "http://127.0.0.1:1455/auth/callback"

    /// The query of a valid first-registration request, merged with `overrides` (nil removes).
    static func authorizeQuery(_ overrides: [String: String?] = [:], clientID: String = "dynamic_agent_client") -> [(String, String)] {
        var items: [(String, String?)] = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI), ("scope", fullScope),
            ("resource", resource), ("state", "state-123"), ("nonce", "nonce-456"), ("code_challenge", PKCEExample.challenge),
            ("code_challenge_method", "S256"), ("ext_agent_host_id", hostID),
        ]
        if clientID == "dynamic_agent_client" { items.append(("agent_name_hint", "Test App")) }
        for (name, value) in overrides {
            if let index = items.firstIndex(where: { $0.0 == name }) { items[index].1 = value } else { items.append((name, value)) }
        }
        return items.compactMap { item in item.1.map { (item.0, $0) } }
    }

    /// GETs `path` without following redirects.
    func getWithoutRedirect(_ path: String) async throws -> HTTPExchange {
        let request = URLRequest(url: URL(string: emulator.baseURL.absoluteString + path)!)
        let session = URLSession(configuration: .ephemeral, delegate: RefuseRedirects(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var fields = [String: String]()
        for (key, value) in http.allHeaderFields { fields[String(describing: key).lowercased()] = String(describing: value) }
        return HTTPExchange(status: http.statusCode, headers: fields, body: data)
    }

    /// POSTs a form without following redirects.
    func postFormWithoutRedirect(_ path: String, _ fields: [(String, String)]) async throws -> HTTPExchange {
        var request = URLRequest(url: URL(string: emulator.baseURL.absoluteString + path)!)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(Self.encode(fields).utf8)
        let session = URLSession(configuration: .ephemeral, delegate: RefuseRedirects(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var headers = [String: String]()
        for (key, value) in http.allHeaderFields { headers[String(describing: key).lowercased()] = String(describing: value) }
        return HTTPExchange(status: http.statusCode, headers: headers, body: data)
    }

    /// `GET /api/accounts/authorize?<query>` without following the redirect.
    func authorize(_ query: [(String, String)]) async throws -> HTTPExchange {
        try await getWithoutRedirect("/api/accounts/authorize?" + Self.encode(query))
    }

    /// The query parameters of a redirect's `Location`, or [:] when there is none.
    static func callbackParameters(_ exchange: HTTPExchange) -> [String: String] {
        guard let location = exchange.headers["location"], let components = URLComponents(string: location) else { return [:] }
        var result = [String: String]()
        for item in components.queryItems ?? [] { result[item.name] = item.value?.replacingOccurrences(of: "+", with: " ") }
        return result
    }

    /// Exchanges `code` at the SIWC token endpoint.
    func exchange(code: String, clientID: String, verifier: String = PKCEExample.verifier, redirectURI: String = redirectURI)
        async throws -> HTTPExchange
    {
        try await http.postForm("/api/accounts/oauth/token", [
            ("grant_type", "authorization_code"), ("client_id", clientID), ("code", code), ("code_verifier", verifier),
            ("redirect_uri", redirectURI), ("resource", Self.resource),
        ])
    }

    /// Refreshes with `refreshToken`.
    func refresh(_ refreshToken: String, clientID: String) async throws -> HTTPExchange {
        try await http.postForm("/api/accounts/oauth/token", [
            ("grant_type", "refresh_token"), ("client_id", clientID), ("refresh_token", refreshToken), ("resource", Self.resource),
        ])
    }

    /// A whole first sign-in with automatic approval: authorize, then exchange. Returns the
    /// token response and the issued client id.
    func signIn(_ overrides: [String: String?] = [:], clientID: String = "dynamic_agent_client") async throws
        -> (tokens: HTTPExchange, clientID: String)
    {
        let redirect = try await authorize(Self.authorizeQuery(overrides, clientID: clientID))
        let callback = Self.callbackParameters(redirect)
        let issued = callback["client_id"] ?? clientID
        let tokens = try await exchange(code: callback["code"] ?? "", clientID: issued)
        return (tokens, issued)
    }

    static func encode(_ fields: [(String, String)]) -> String {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        return fields.map {
            "\($0.0.addingPercentEncoding(withAllowedCharacters: allowed)!)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)"
        }.joined(separator: "&")
    }
}
