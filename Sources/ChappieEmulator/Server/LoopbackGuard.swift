/// Who may talk to the emulator: only requests addressed to it on this machine.
///
/// The emulator listens on 127.0.0.1, but a web page can still reach it: by DNS rebinding (a name
/// of the attacker's that resolves to 127.0.0.1, so the browser sends `Host: attacker.example:N`)
/// or by posting a form across origins (the browser sends the page's `Origin`). So a request is
/// answered only when its `Host` names a loopback host (`127.0.0.1`, `localhost` or `[::1]`, with any
/// port or none: DNS rebinding needs a foreign host name, so the name alone is the guard, and a
/// loopback relay, SSH tunnel or debugging proxy in front of the emulator forwards its own port),
/// and when its `Origin`, if any, is the emulator's own. HTTP clients (the SDK, the Codex CLI,
/// `openai`, `curl`) send such a `Host` and no `Origin`. A request without `Host` (HTTP/1.0) is
/// answered: browsers always send one.
struct LoopbackGuard: Sendable {
    /// The emulator's port.
    let port: Int

    /// Whether a request with this `Host` header value is for the emulator: a loopback host name,
    /// whatever the port (a relay's).
    func acceptsHost(_ value: String?) -> Bool {
        guard let value else { return true }
        guard let (host, _) = Self.split(value.lowercased()) else { return false }
        return Wire.loopbackHosts.contains(host)
    }

    /// Whether a request with this `Origin` header value may be answered: none, or the emulator's
    /// own (`http://`, an accepted host and exactly its port: another local server is another
    /// origin). `null` (a sandboxed or file page) is not.
    func acceptsOrigin(_ value: String?) -> Bool {
        guard let value else { return true }
        let lowered = value.lowercased()
        guard lowered.hasPrefix(Wire.httpPrefix) else { return false }
        let authority = lowered.dropFirst(Wire.httpPrefix.count)
        guard let (host, port) = Self.split(String(authority)) else { return false }
        return Wire.loopbackHosts.contains(host) && port == self.port
    }

    /// `host[:port]` or `[v6]:port` split into a host (brackets kept) and an optional port; nil
    /// when the port is not a number.
    private static func split(_ authority: String) -> (host: String, port: Int?)? {
        let hostEnd: String.Index
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostEnd = authority.index(after: close)
        } else {
            hostEnd = authority.firstIndex(of: ":") ?? authority.endIndex
        }
        let host = String(authority[..<hostEnd])
        let rest = authority[hostEnd...]
        if rest.isEmpty { return (host, nil) }
        guard rest.first == ":", let port = Int(rest.dropFirst()), rest.dropFirst().allSatisfy(\.isASCII) else { return nil }
        return (host, port)
    }

    private enum Wire {
        static let loopbackHosts: Set<String> = ["127.0.0.1", "localhost", "[::1]"]
        static let httpPrefix = "http://"
    }
}
