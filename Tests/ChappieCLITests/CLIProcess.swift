import ChappieSDK
import Foundation

/// Runs the built `chappie` binary and captures what it wrote.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

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

    /// Runs `chappie arguments…` with `stdin` as standard input and `environment` added; kills it after `timeout` seconds.
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], timeout: TimeInterval = 60) async throws -> CLIResult {
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        for (key, value) in environment { env[key] = value }
        return try await execute(binary, arguments, stdin: stdin, environment: env, timeout: timeout)
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
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdinData { input.fileHandleForWriting.write(stdinData) }
        try input.fileHandleForWriting.close()
        let killer = Task {
            try await Task.sleep(for: .seconds(timeout))
            process.terminate()
        }
        // Blocking reads run on threads of their own, never on the cooperative pool or a Dispatch
        // worker (on Linux those back the pool): an emulator in this test process needs them.
        async let stdoutData = readToEnd(out.fileHandleForReading)
        async let stderrData = readToEnd(err.fileHandleForReading)
        let (o, e) = await (stdoutData, stderrData)
        await waitForExit(process)
        killer.cancel()
        return CLIResult(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    /// Reads a pipe to its end on a thread of its own.
    static func readToEnd(_ handle: FileHandle) async -> Data {
        await BlockingCall.run { handle.readDataToEndOfFile() }
    }

    /// Waits for `process` to exit on a thread of its own.
    static func waitForExit(_ process: Process) async {
        await BlockingCall.run { process.waitUntilExit() }
    }

    /// A fresh, empty data folder so no test sees a real credential.
    static func isolatedEnvironment() -> [String: String] {
        let folder = FileManager.default.temporaryDirectory.appending(path: "chappie-cli-\(UUID().uuidString)").path
        // HTTP/SSE, so tests read each turn's whole request; the WebSocket has tests of its own.
        return ["XDG_DATA_HOME": folder, "HOME": folder, "CHAPPIE_AUTH_URL": "", "CHAPPIE_BACKEND_URL": "", "CHAPPIE_TRANSPORT": "http"]
    }
}

/// A `chappie` process that keeps running while the test talks to it.
final class RunningCLI: @unchecked Sendable {
    // Sound: `process` is only touched from the test task; pipes are thread-safe handles.
    let process = Process()
    private let out = Pipe()
    private let err = Pipe()
    private let input = Pipe()
    private let lines: AsyncStream<String>

    /// Starts `chappie arguments…`; with `pipedInput` its standard input is a pipe the test
    /// writes to (``type(_:)``, ``closeInput()``), otherwise `/dev/null`.
    init(_ arguments: [String], environment: [String: String], pipedInput: Bool = false) throws {
        process.executableURL = CLIProcess.binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardOutput = out
        process.standardError = err
        process.standardInput = pipedInput ? input : FileHandle.nullDevice
        let (stream, continuation) = AsyncStream<String>.makeStream()
        lines = stream
        let handle = out.fileHandleForReading
        Thread.detachNewThread {
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 0x0A) {
                    continuation.yield(String(decoding: buffer[..<newline], as: UTF8.self))
                    buffer.removeSubrange(...newline)
                }
            }
            if !buffer.isEmpty { continuation.yield(String(decoding: buffer, as: UTF8.self)) }
            continuation.finish()
        }
        try process.run()
    }

    /// Waits for the first standard-output line that satisfies `predicate`; nil at end of output.
    func firstLine(where predicate: (String) -> Bool) async -> String? {
        for await line in lines where predicate(line) { return line }
        return nil
    }

    /// The standard-output lines up to and including the first that satisfies `last` (all of
    /// them when output ends first).
    func lines(through last: (String) -> Bool) async -> [String] {
        var collected: [String] = []
        for await line in lines {
            collected.append(line)
            if last(line) { break }
        }
        return collected
    }

    /// Sends SIGINT, as Ctrl-C would.
    func interrupt() { process.interrupt() }

    /// A test that ends early (a failed expectation, a thrown error) never leaves the process behind.
    deinit { if process.isRunning { process.terminate() } }

    /// Writes `text` to the piped standard input.
    func type(_ text: String) { input.fileHandleForWriting.write(Data(text.utf8)) }

    /// Closes the piped standard input (end of input).
    func closeInput() { try? input.fileHandleForWriting.close() }

    /// Waits for exit; returns the status and standard error.
    func wait() async -> (status: Int32, stderr: String) {
        let data = await CLIProcess.readToEnd(err.fileHandleForReading)
        await CLIProcess.waitForExit(process)
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
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
