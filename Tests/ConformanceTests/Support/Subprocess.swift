import Dispatch
import Foundation

/// Runs a third-party client as a subprocess with a hard time limit, capturing its output.
enum Subprocess {
    /// The outcome of one run.
    struct Result: Sendable {
        /// Exit status (or the signal number when killed).
        var status: Int32
        /// Whether the time limit killed it.
        var timedOut: Bool
        /// Captured standard output.
        var stdout: String
        /// Captured standard error.
        var stderr: String
    }

    /// Runs `executable` with `arguments`; kills it after `timeout` seconds.
    static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        currentDirectory: URL? = nil,
        timeout: Double = 120
    ) async throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chappie-sub-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("stdout"), errURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: outURL), errHandle = try FileHandle(forWritingTo: errURL)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outHandle
        process.standardError = errHandle
        let timedOut = TimeoutFlag()
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                if process.isRunning {
                    timedOut.set()
                    kill(process.processIdentifier, SIGKILL)
                }
            }
        }
        try outHandle.close()
        try errHandle.close()
        return Result(
            status: status,
            timedOut: timedOut.value,
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        )
    }

    /// Runs a short probe synchronously (for `.enabled(if:)` conditions); true on exit status 0.
    static func probe(_ executable: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// Runs a short probe synchronously and returns its trimmed standard output, or nil on failure.
    static func probeOutput(_ executable: String, _ arguments: [String]) -> String? {
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A set-once flag shared with the watchdog.
final class TimeoutFlag: @unchecked Sendable {
    // Unchecked: the flag is only touched under `lock`.
    private let lock = NSLock()
    private var flag = false
    func set() { lock.lock(); flag = true; lock.unlock() }
    var value: Bool { lock.lock(); defer { lock.unlock() }; return flag }
}
