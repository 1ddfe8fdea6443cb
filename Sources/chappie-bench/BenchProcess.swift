import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process of the benchmark (a peer client, curl, or the emulator), started with
/// `posix_spawnp` so that its CPU time can be read from `wait4`'s resource usage.
final class BenchProcess: @unchecked Sendable {
    /// The child's process id.
    let pid: pid_t
    /// Read end of the child's standard output.
    let output: FileHandle
    /// Write end of the child's standard input (closed by ``closeInput()``).
    private let input: FileHandle

    /// What a finished child reports.
    struct Exit {
        /// The exit status (or 128 + signal).
        var status: Int32
        /// User + system CPU seconds the child used.
        var cpuSeconds: Double
        /// Everything the child wrote to standard output.
        var output: Data
    }

    /// Starts `arguments[0]` (looked up in `PATH`) with `arguments`; standard error is discarded
    /// unless `keepsStandardError`. Throws when the program cannot be started.
    init(_ arguments: [String], environment: [String: String]? = nil, keepsStandardError: Bool = false) throws {
        var stdoutPipe: [Int32] = [0, 0]
        var stdinPipe: [Int32] = [0, 0]
        guard pipe(&stdoutPipe) == 0, pipe(&stdinPipe) == 0 else { throw BenchError("pipe failed") }
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
        if !keepsStandardError { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        for fd in stdoutPipe + stdinPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        let environment = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var child: pid_t = 0
        let status = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in posix_spawnp(&child, arguments[0], &actions, nil, argv, envp) }
        }
        close(stdoutPipe[1])
        close(stdinPipe[0])
        guard status == 0 else {
            close(stdoutPipe[0])
            close(stdinPipe[1])
            throw BenchError("cannot start \(arguments[0])")
        }
        pid = child
        output = FileHandle(fileDescriptor: stdoutPipe[0], closeOnDealloc: true)
        input = FileHandle(fileDescriptor: stdinPipe[1], closeOnDealloc: true)
    }

    /// Reads one line of the child's standard output (blocking), without the newline.
    func readLine() -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(output.fileDescriptor, &byte, 1) == 1 {
            if byte == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// Closes the child's standard input (the emulator child exits on end of input).
    func closeInput() { try? input.close() }

    /// Waits for the child to end (blocking) and returns its status, CPU time and output.
    func wait() -> Exit {
        let data = output.readDataToEndOfFile()
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let exited = status & 0x7F == 0
        return Exit(status: exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F),
                    cpuSeconds: CPUClock.seconds(usage), output: data)
    }

    /// Runs `arguments` to the end; nil when it cannot start or exits non-zero.
    static func run(_ arguments: [String]) -> Exit? {
        guard let process = try? BenchProcess(arguments) else { return nil }
        process.closeInput()
        let exit = process.wait()
        return exit.status == 0 ? exit : nil
    }

    /// The last line of a successful run's output, parsed as a JSON object.
    static func runJSON(_ arguments: [String]) -> [String: Any]? {
        guard let exit = run(arguments),
              let line = String(decoding: exit.output, as: UTF8.self).split(separator: "\n").last else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}

/// Calls `body` with a NULL-terminated C array of `strings`.
private func withCStrings<Result>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}

/// CPU time of this process, from `getrusage`.
enum CPUClock {
    /// User + system CPU seconds this process has used so far (all threads).
    static func now() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return seconds(usage)
    }

    /// User + system seconds of `usage`.
    static func seconds(_ usage: rusage) -> Double {
        Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// Monotonic wall-clock seconds.
    static func wall() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// The process's peak resident memory (VmHWM), in bytes, or nil off Linux.
    static func peakResidentBytes() -> Int? { statusBytes("VmHWM:") }

    /// The process's resident memory now (VmRSS), in bytes, or nil off Linux.
    static func currentResidentBytes() -> Int? { statusBytes("VmRSS:") }

    private static func statusBytes(_ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }
}

/// A benchmark set-up failure.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
