import Foundation

/// How to run this `chappie` again, for hints that name a command: `chappie` when that name on
/// `PATH` is this program, `swift run chappie` when it runs from a SwiftPM build folder (as after
/// `swift run chappie demo`), and its path otherwise.
enum Invocation {
    /// The command to type.
    static let command: String = {
        let running = (Bundle.main.executableURL ?? URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0])).resolvingSymlinksInPath().standardizedFileURL
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        let onPath = path.lazy.map { URL(fileURLWithPath: String($0)).appending(path: "chappie") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
        if let onPath, onPath.resolvingSymlinksInPath().standardizedFileURL == running { return "chappie" }
        if running.path.contains("/.build/") { return "swift run chappie" }
        return running.path
    }()
}
