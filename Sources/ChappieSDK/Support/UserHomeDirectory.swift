import Foundation

/// The current user's home folder, on every platform the package builds for.
///
/// `FileManager.homeDirectoryForCurrentUser` exists on macOS and Linux only (it is unavailable in
/// iOS, tvOS, watchOS and visionOS), so the file stores ask here instead. Where it exists it is
/// used as before; elsewhere `NSHomeDirectory()`, which is the app's sandbox container there.
package enum UserHomeDirectory {
    /// The home folder (on iOS and the other device platforms: the app's container).
    package static var url: URL {
        #if os(macOS) || os(Linux)
        FileManager.default.homeDirectoryForCurrentUser
        #else
        URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)
        #endif
    }
}
