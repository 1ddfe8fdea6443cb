import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Literal loopback addresses: the only hosts a token may travel to over plain `http` or `ws`
/// (the emulator on this machine), and the hosts never sent through a proxy.
enum LoopbackAddress {
    /// True for `localhost`, an IPv4 literal in 127.0.0.0/8, and `::1` (with or without brackets).
    /// A name such as `127.0.0.1.example.com` is not loopback: it may resolve anywhere.
    static func isLoopback(host: String?) -> Bool {
        guard let host else { return false }
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" { return true }
        var address = in_addr()
        if inet_pton(AF_INET, bare, &address) == 1 { return bare.hasPrefix("127.") }
        var address6 = in6_addr()
        guard inet_pton(AF_INET6, bare, &address6) == 1 else { return false }
        return withUnsafeBytes(of: &address6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
    }
}
