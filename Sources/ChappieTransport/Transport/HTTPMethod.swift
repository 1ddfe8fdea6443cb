/// An HTTP request method (RFC 9110 §9): `GET`, `POST`, …, sent as spelled. The one shape a
/// method has at every transport seam.
package struct HTTPMethod: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method's token as it goes on the wire (methods are case-sensitive, RFC 9110 §9.1).
    package let rawValue: String

    /// The method named `rawValue`.
    package init(_ rawValue: String) { self.rawValue = rawValue }

    package init(stringLiteral value: String) { rawValue = value }

    package var description: String { rawValue }

    /// `GET`.
    package static let get: HTTPMethod = "GET"
    /// `HEAD`.
    package static let head: HTTPMethod = "HEAD"
    /// `POST`.
    package static let post: HTTPMethod = "POST"
    /// `PUT`.
    package static let put: HTTPMethod = "PUT"
    /// `PATCH`.
    package static let patch: HTTPMethod = "PATCH"
    /// `DELETE`.
    package static let delete: HTTPMethod = "DELETE"
    /// `OPTIONS`.
    package static let options: HTTPMethod = "OPTIONS"
}
