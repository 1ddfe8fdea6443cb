import ChappieSDK
import ChappieTestSupport
import Foundation

/// How a run of the built `chappie` binary ended and what it wrote.
typealias CLIResult = TestProcess.Result

/// The built `chappie` binary, run through ``TestProcess`` with the CLI tests' defaults.
enum CLIProcess {
    /// The `chappie` binary next to the test bundle.
    static var binary: URL {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appending(path: "chappie").path), folder.path != "/" {
            folder = folder.deletingLastPathComponent()
        }
        return folder.appending(path: "chappie")
    }

    /// Runs `chappie arguments…` with `stdin` as standard input and `environment` added (and
    /// `NO_COLOR=1`); kills it after `timeout` seconds.
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], timeout: TimeInterval = 60) async throws -> CLIResult {
        try await TestProcess(binary.path, arguments, environment: cliEnvironment(environment), input: stdin.map(TestProcess.Input.text) ?? .none,
                              timeLimit: .seconds(timeout)).wait()
    }

    /// Runs `executable arguments…` with exactly `environment`, feeding it `stdin`; kills it after
    /// `timeout` seconds.
    static func execute(_ executable: URL, _ arguments: [String], stdin: String?, environment: [String: String],
                        timeout: TimeInterval) async throws -> CLIResult {
        try await execute(executable, arguments, stdinData: stdin.map { Data($0.utf8) }, environment: environment, timeout: timeout)
    }

    /// Runs `executable arguments…` with exactly `environment`, feeding it the bytes `stdinData`;
    /// kills it after `timeout` seconds.
    static func execute(_ executable: URL, _ arguments: [String], stdinData: Data?, environment: [String: String],
                        timeout: TimeInterval = 60) async throws -> CLIResult {
        try await TestProcess(executable.path, arguments, environment: environment, inheritsEnvironment: false, input: .bytes(stdinData ?? Data()),
                              timeLimit: .seconds(timeout)).wait()
    }

    /// Starts `chappie arguments…` with `environment` added (and `NO_COLOR=1`) and leaves it
    /// running while the test talks to it; with `pipedInput` its standard input is a pipe the
    /// test writes to, otherwise `/dev/null`. Killed when the test lets go of it.
    static func start(_ arguments: [String], environment: [String: String], pipedInput: Bool = false) throws -> TestProcess {
        try TestProcess(binary.path, arguments, environment: cliEnvironment(environment), input: pipedInput ? .pipe : .none)
    }

    /// `environment` with `NO_COLOR=1` unless it says otherwise, as changes to this process's.
    private static func cliEnvironment(_ environment: [String: String]) -> [String: String?] {
        var changes: [String: String?] = ["NO_COLOR": "1"]
        for (key, value) in environment { changes[key] = value }
        return changes
    }

    /// A fresh, empty data folder so no test sees a real credential.
    static func isolatedEnvironment() -> [String: String] {
        let folder = FileManager.default.temporaryDirectory.appending(path: "chappie-cli-\(UUID().uuidString)").path
        // HTTP/SSE, so tests read each turn's whole request; the WebSocket has tests of its own.
        return ["XDG_DATA_HOME": folder, "HOME": folder, "CHAPPIE_AUTH_URL": "", "CHAPPIE_BACKEND_URL": "", "CHAPPIE_TRANSPORT": "http"]
    }
}

extension CLIResult {
    /// Standard output as JSON lines (`--json`), one value per non-empty line. Throws when a line
    /// is not JSON.
    func jsonLines() throws -> [ChappieJSONValue] {
        try stdout.split(separator: "\n").map { try ChappieJSONValue(jsonData: Data($0.utf8)) }
    }

    /// True when standard output or standard error holds an escape character (colour, cursor moves).
    var containsEscape: Bool { (stdout + stderr).unicodeScalars.contains("\u{1B}") }
}
