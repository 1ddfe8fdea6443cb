import ChappieTestSupport
import Foundation

extension CLIProcess {
    /// util-linux `script`, which runs a command on a pseudo-terminal of its own.
    static let script = URL(filePath: "/usr/bin/script")

    /// True where ``runInPseudoTerminal(_:environment:timeout:)`` works: Linux with util-linux
    /// `script` (the BSD `script` on macOS takes other options).
    static var pseudoTerminalAvailable: Bool {
        #if os(Linux)
        FileManager.default.isExecutableFile(atPath: script.path)
        #else
        false
        #endif
    }

    /// Runs `chappie arguments…` with a pseudo-terminal as standard input, output and error
    /// (`script -qec COMMAND /dev/null`), so the binary sees a terminal. `NO_COLOR` is removed
    /// from this process's environment and then `environment` is added. Standard error arrives
    /// merged into ``CLIResult/stdout`` with CRLF line ends; the status is the binary's. Killed
    /// after `timeout` seconds.
    static func runInPseudoTerminal(_ arguments: [String], environment: [String: String], timeout: TimeInterval = 60) async throws -> CLIResult {
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = nil
        for (key, value) in environment { env[key] = value }
        let command = ([binary.path] + arguments).map(shellQuoted).joined(separator: " ")
        return try await execute(script, ["-qec", command, "/dev/null"], stdin: nil, environment: env, timeout: timeout)
    }

    /// `text` as one single-quoted `sh` word.
    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
