import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs one test of this test bundle in a child process, for tests that need a second writer
/// process or one to kill.
///
/// How it works: the parent re-launches the running test binary (`CommandLine.arguments[0]`)
/// with `--filter <suite> --testing-library swift-testing` and the environment variable
/// ``roleVariable`` naming a role. Tests in the child suite are enabled only when that variable
/// holds their role, so in a normal run they are skipped, and in the child only the chosen one
/// runs. The child reports progress as lines starting with ``marker`` on standard output (mixed
/// with the test runner's own output, which the parent ignores), and reads `go` lines from
/// standard input when it must wait for the parent. No sleeps: the parent awaits lines and exit.
final class ChildProcess: Sendable {
    /// The environment variable that selects a child role.
    static let roleVariable = "CHAPPIE_RUNTIME_TEST_CHILD_ROLE"
    /// The prefix of progress lines a child writes.
    static let marker = "CHAPPIE-CHILD "

    /// The role this process plays, when it is a child.
    static var role: String? { ProcessInfo.processInfo.environment[roleVariable] }
    /// A value the parent passed to this child.
    static func argument(_ name: String) -> String? { ProcessInfo.processInfo.environment["CHAPPIE_RUNTIME_TEST_CHILD_\(name)"] }

    /// Writes a progress line (unbuffered) from a child.
    static func report(_ text: String) {
        FileHandle.standardOutput.write(Data((marker + text + "\n").utf8))
    }

    /// Blocks a child until the parent writes a line to its standard input.
    static func waitForGo() {
        _ = readLine()
    }

    private let process: Process
    private let input: Pipe
    /// The child's progress lines (without the marker), in order; ends when its output closes.
    let lines: AsyncStream<String>
    private let exit: AsyncStream<(reason: Process.TerminationReason, status: Int32)>

    /// Starts the test binary running `suite` with `role` and the named `arguments`.
    init(suite: String, role: String, arguments: [String: String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--filter", suite, "--testing-library", "swift-testing"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.roleVariable] = role
        for (name, value) in arguments { environment["CHAPPIE_RUNTIME_TEST_CHILD_\(name)"] = value }
        process.environment = environment
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        let (lines, lineContinuation) = AsyncStream<String>.makeStream()
        let (exit, exitContinuation) = AsyncStream<(reason: Process.TerminationReason, status: Int32)>.makeStream()
        let buffer = LineBuffer()
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                lineContinuation.finish()
                return
            }
            for line in buffer.append(data) where line.hasPrefix(Self.marker) {
                lineContinuation.yield(String(line.dropFirst(Self.marker.count)))
            }
        }
        process.terminationHandler = { process in
            exitContinuation.yield((process.terminationReason, process.terminationStatus))
            exitContinuation.finish()
        }
        self.process = process
        self.input = input
        self.lines = lines
        self.exit = exit
        try process.run()
    }

    /// The child's process id.
    var pid: Int32 { process.processIdentifier }

    /// Waits for the first progress line for which `accept` is true; nil if the output ends first.
    func firstLine(where accept: (String) -> Bool) async -> String? {
        for await line in lines where accept(line) { return line }
        return nil
    }

    /// Lets a child waiting in ``waitForGo()`` continue.
    func go() {
        input.fileHandleForWriting.write(Data("go\n".utf8))
    }

    /// Sends SIGKILL.
    func kill() {
        #if canImport(Glibc)
        _ = Glibc.kill(process.processIdentifier, SIGKILL)
        #else
        _ = Darwin.kill(process.processIdentifier, SIGKILL)
        #endif
    }

    /// Waits for the child to end; returns how it ended.
    func waitForExit() async -> (reason: Process.TerminationReason, status: Int32)? {
        for await result in exit { return result }
        return nil
    }
}

/// Splits bytes into lines across reads. Used only from the pipe's serial readability handler;
/// the lock makes that assumption unnecessary for soundness.
private final class LineBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var pending = Data()

    func append(_ data: Data) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        pending.append(data)
        var lines: [String] = []
        while let newline = pending.firstIndex(of: 0x0A) {
            lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
            pending = Data(pending[pending.index(after: newline)...])
        }
        return lines
    }
}
