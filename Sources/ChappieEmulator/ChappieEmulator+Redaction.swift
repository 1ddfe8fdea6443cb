/// Secret-bearing public values print without their secrets (STYLE §12): token strings, the
/// `Authorization` header and request bodies never appear in `description`, `debugDescription` or
/// a mirror (`dump`).
extension ChappieEmulator.IssuedTokens: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `IssuedTokens(expiresIn: <s>, tokens: <redacted>)`.
    public var description: String { "IssuedTokens(expiresIn: \(expiresIn), tokens: \(Wire.redacted))" }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// A mirror with the token fields redacted.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "idToken": Wire.redacted, "accessToken": Wire.redacted, "refreshToken": Wire.redacted, "expiresIn": expiresIn,
        ])
    }
}

extension ChappieEmulator.RecordedRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `POST /path?query (headers: names…, body: N bytes)`; header values are left out.
    public var description: String {
        let target = path + (query.map { "?" + $0 } ?? "")
        return "\(method) \(target) (headers: \(headers.map(\.name).joined(separator: ", ")), body: \(bodyByteCount) bytes)"
    }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// A mirror with header names only and the body size.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "method": method, "path": path, "query": query as Any, "headerNames": headers.map(\.name), "bodyBytes": bodyByteCount,
        ])
    }
}

private enum Wire {
    static let redacted = "<redacted>"
}
