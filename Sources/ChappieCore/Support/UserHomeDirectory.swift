import Foundation

/// The current user's home folder and XDG data folder, on every platform the package builds for.
///
/// On Linux the home folder is `$HOME` when it is set to an absolute path, as the XDG Base
/// Directory rules and every shell tool assume (`FileManager.homeDirectoryForCurrentUser` reads
/// the password database instead, so `HOME=/tmp/x chappie login` would still write into the real
/// home); the password database's entry only when `HOME` is unset. On macOS it is
/// `FileManager.homeDirectoryForCurrentUser`; on iOS and the other device platforms, where that is
/// unavailable, `NSHomeDirectory()`, the app's container.
package enum UserHomeDirectory {
    /// The home folder (on iOS and the other device platforms: the app's container).
    package static var url: URL { url(environment: ProcessInfo.processInfo.environment) }

    /// The home folder that `environment` (this process's, by default) names.
    package static func url(environment: [String: String]) -> URL {
        #if os(Linux)
        if let home = environment["HOME"], home.hasPrefix("/") {
            return URL(fileURLWithPath: home, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser
        #elseif os(macOS)
        FileManager.default.homeDirectoryForCurrentUser
        #else
        URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)
        #endif
    }

    /// `$XDG_DATA_HOME` when it is an absolute path, else `<home>/.local/share` (the XDG Base
    /// Directory rule): where the Linux stores keep their files.
    package static func dataHome(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true)
        }
        return url(environment: environment).appending(path: ".local/share", directoryHint: .isDirectory)
    }
}
