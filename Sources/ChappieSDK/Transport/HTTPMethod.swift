/// An HTTP request method (RFC 9110 §9): `GET`, `POST`, …, sent as spelled. The one shape a
/// method has at every transport seam.
struct HTTPMethod: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method's token as it goes on the wire (methods are case-sensitive, RFC 9110 §9.1).
    let rawValue: String

    /// The method named `rawValue`.
    init(_ rawValue: String) { self.rawValue = rawValue }

    init(stringLiteral value: String) { rawValue = value }

    var description: String { rawValue }

    /// `GET`.
    static let get: HTTPMethod = "GET"
    /// `HEAD`.
    static let head: HTTPMethod = "HEAD"
    /// `POST`.
    static let post: HTTPMethod = "POST"
    /// `PUT`.
    static let put: HTTPMethod = "PUT"
    /// `PATCH`.
    static let patch: HTTPMethod = "PATCH"
    /// `DELETE`.
    static let delete: HTTPMethod = "DELETE"
    /// `OPTIONS`.
    static let options: HTTPMethod = "OPTIONS"
}
