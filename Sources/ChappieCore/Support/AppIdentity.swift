import Foundation

/// The name of the running app, from which per-app defaults are derived (the default Keychain
/// service, the default thread folder), so that two programs using Chappie never share a
/// credential slot or a thread folder by accident.
package enum AppIdentity {
    /// The main bundle's identifier when it has one (an app), else the executable's name (a
    /// command-line tool), reduced to letters, digits, `.`, `-` and `_`; `app` if nothing is left.
    package static let name: String = name(bundleIdentifier: Bundle.main.bundleIdentifier,
                                            executableName: ProcessInfo.processInfo.processName)

    /// The name derived from `bundleIdentifier`, else from `executableName`.
    package static func name(bundleIdentifier: String?, executableName: String) -> String {
        let candidate = bundleIdentifier.flatMap { $0.isEmpty ? nil : $0 } ?? executableName
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
        let cleaned = String(candidate.filter { allowed.contains($0) }.drop { $0 == "." })
        return cleaned.isEmpty ? "app" : cleaned
    }
}
