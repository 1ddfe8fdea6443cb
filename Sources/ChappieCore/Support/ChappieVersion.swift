import Foundation

/// The SDK version and the `User-Agent` built from it.
public enum ChappieVersion {
    /// Semantic version of this SDK.
    public static let current = "0.1.0"

    /// The `client_version` sent to `GET /codex/models`. The backend hides models whose
    /// `minimal_client_version` is newer, so this names the Codex
    /// CLI release whose protocol Chappie speaks (checked against 0.163.0).
    public static let modelsClientVersion = "0.163.0"

    /// `<originator>/<version> (<OS> <version>; <arch>) chappie-sdk`, the shape of PROTOCOL §4.2.
    static func userAgent(originator: String) -> String {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        #if os(Linux)
        let system = "Linux"
        #elseif os(iOS)
        let system = "iOS"
        #elseif os(macOS)
        let system = "Mac OS"
        #else
        let system = "Unknown"
        #endif
        #if arch(arm64)
        let arch = "arm64"
        #else
        let arch = "x86_64"
        #endif
        return "\(originator)/\(current) (\(system) \(version.majorVersion).\(version.minorVersion).\(version.patchVersion); \(arch)) chappie-sdk"
    }
}
