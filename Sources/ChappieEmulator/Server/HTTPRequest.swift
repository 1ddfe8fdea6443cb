import Foundation

/// One parsed HTTP/1.1 request (RFC 9112) as the emulator's handlers see it.
struct HTTPRequest: Sendable {
    /// Method token, upper-case as sent (`GET`, `POST`, …).
    var method: String
    /// Path part of the request target, percent-encoding preserved (e.g. `/backend-api/codex/models`).
    var path: String
    /// Raw query string after `?`, without the `?`; nil when the target has none.
    var query: String?
    /// Header fields in arrival order; names as sent.
    var headers: [(name: String, value: String)]
    /// The request body after removing any chunked transfer coding.
    var body: Data

    /// The first value of the header named `name` (case-insensitive), or nil.
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The decoded query parameters (`application/x-www-form-urlencoded` rules); last one wins.
    var queryItems: [String: String] { FormURLEncoding.decode(query ?? "") }

    /// The bearer token of the `Authorization` header, or nil when absent or of another scheme.
    var bearerToken: String? {
        guard let value = header("Authorization") else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].caseInsensitiveCompare("Bearer") == .orderedSame else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// Whether the client asked to close the connection after this exchange.
    var wantsClose: Bool {
        header("Connection")?.lowercased().split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "close" }
            ?? false
    }
}
