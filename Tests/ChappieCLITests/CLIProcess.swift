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
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let killer = Task {
            try await Task.sleep(for: .seconds(timeout))
            process.terminate()
        }
        async let stdoutData = Task.detached { out.fileHandleForReading.readDataToEndOfFile() }.value
        async let stderrData = Task.detached { err.fileHandleForReading.readDataToEndOfFile() }.value
        let (o, e) = await (stdoutData, stderrData)
        process.waitUntilExit()
        killer.cancel()
        return CLIResult(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    /// A fresh, empty data folder so no test sees a real credential.
    static func isolatedEnvironment() -> [String: String] {
        let folder = FileManager.default.temporaryDirectory.appending(path: "chappie-cli-\(UUID().uuidString)").path
        return ["XDG_DATA_HOME": folder, "HOME": folder, "CHAPPIE_AUTH_URL": "", "CHAPPIE_BACKEND_URL": ""]
    }
}
