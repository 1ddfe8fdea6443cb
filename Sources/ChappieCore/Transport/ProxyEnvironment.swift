import Foundation

/// The proxy variables libcurl reads from the environment (curl's `detect_proxy`), so the SDK can
/// tell whether FoundationNetworking would send a request through a proxy: `http_proxy` (lower case
/// only, as curl ignores `HTTP_PROXY`) for `http`, `https_proxy`/`HTTPS_PROXY` for `https`, then
/// `all_proxy`/`ALL_PROXY`; `no_proxy`/`NO_PROXY` exempts hosts (`*`, a host name or domain suffix,
/// an address, or an address range such as `127.0.0.0/8`).
enum ProxyEnvironment {
    /// The variable that would proxy `url` (for example `http_proxy`), or nil when none would.
    static func variableProxying(_ url: URL, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        #if canImport(FoundationNetworking)
        guard let scheme = url.scheme?.lowercased(), let host = url.host else { return nil }
        let candidates = scheme == "https" ? Wire.httpsVariables : scheme == "http" ? Wire.httpVariables : []
        guard let variable = (candidates + Wire.allVariables).first(where: { !(environment[$0] ?? "").isEmpty }) else { return nil }
        let exemptions = environment[Wire.noProxy] ?? environment[Wire.noProxyUpper] ?? ""
        return isExempt(host: host, noProxy: exemptions) ? nil : variable
        #else
        return nil  // Apple platforms: the SDK turns proxies off per session for loopback hosts.
        #endif
    }

    /// Whether `noProxy` (comma-separated) exempts `host`.
    static func isExempt(host: String, noProxy: String) -> Bool {
        let host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        for entry in noProxy.split(separator: ",") {
            let pattern = entry.trimmingCharacters(in: .whitespaces).lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            if pattern.isEmpty { continue }
            if pattern == "*" || pattern == host { return true }
            if let slash = pattern.firstIndex(of: "/"), let bits = Int(pattern[pattern.index(after: slash)...]),
               matches(host: host, network: String(pattern[..<slash]), prefixBits: bits) {
                return true
            }
            let domain = pattern.hasPrefix(".") ? String(pattern.dropFirst()) : pattern
            if host.hasSuffix("." + domain) { return true }
        }
        return false
    }

    /// Whether the IPv4 literal `host` lies in `network`/`prefixBits`.
    private static func matches(host: String, network: String, prefixBits: Int) -> Bool {
        func octets(_ text: String) -> [UInt32]? {
            let parts = text.split(separator: ".").compactMap { UInt32($0) }
            return parts.count == 4 && parts.allSatisfy { $0 < 256 } ? parts : nil
        }
        guard (0...32).contains(prefixBits), let address = octets(host), let base = octets(network) else {
            return host == network && prefixBits == 128
        }
        let value = address.reduce(0) { $0 << 8 | $1 }
        let baseValue = base.reduce(0) { $0 << 8 | $1 }
        let mask: UInt32 = prefixBits == 0 ? 0 : ~UInt32(0) << (32 - UInt32(prefixBits))
        return value & mask == baseValue & mask
    }

    private enum Wire {
        static let httpVariables = ["http_proxy"]
        static let httpsVariables = ["https_proxy", "HTTPS_PROXY"]
        static let allVariables = ["all_proxy", "ALL_PROXY"]
        static let noProxy = "no_proxy"
        static let noProxyUpper = "NO_PROXY"
    }
}
