import ChappieSDK
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A subprocess that keeps running while a test talks to it: standard output is read line by line
/// as it arrives, standard error is collected in a file and returned at exit.
///
/// Every blocking call (a pipe read, the wait for exit) runs through `BlockingCall`, never on the
/// cooperative pool. A time limit kills the process, so every wait on it ends.
final class RunningProcess {
    private let process = Process()
    private let output = Pipe()
    private let errorFile: URL
    private let timeLimit: Task<Void, Never>
    private var pending = Data()
    private var outputEnded = false

    /// Starts `executable arguments…` with `environment` added to this process's environment;
    /// kills it after `timeout`.
    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Duration) throws {
        errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("chappie-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        timeLimit = Task { [process] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            killHard(process)
        }
    }

    deinit {
        timeLimit.cancel()
        killHard(process)
        try? FileManager.default.removeItem(at: errorFile)
    }


    /// The next line of standard output without its newline; nil at the end of the output.
    func nextLine() async -> String? {
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending = Data(pending[(newline + 1)...])
                return line
            }
            if outputEnded {
                guard !pending.isEmpty else { return nil }
                defer { pending = Data() }
                return String(decoding: pending, as: UTF8.self)
            }
            let handle = output.fileHandleForReading
            let chunk = await BlockingCall.run { handle.availableData }
            if chunk.isEmpty { outputEnded = true }
            pending.append(chunk)
        }
    }

    /// Waits for the process to exit; returns its status and everything it wrote to standard error.
    func wait() async -> (status: Int32, stderr: String) {
        let process = process
        await BlockingCall.run { process.waitUntilExit() }
        timeLimit.cancel()
        let stderr = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        return (process.terminationStatus, stderr)
    }
}

/// SIGKILL, not SIGTERM: a child spawned by Foundation's `Process` inherits this test process's
/// signal mask, in which SIGTERM can be blocked, and then outlives every run.
private func killHard(_ process: Process) {
    guard process.isRunning else { return }
    #if canImport(Glibc)
    _ = Glibc.kill(process.processIdentifier, SIGKILL)
    #else
    process.terminate()
    #endif
}
