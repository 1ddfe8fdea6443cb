import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process a test starts, talks to, and awaits: the one way the tests run a program.
///
/// - Launch: an executable with arguments, environment changes over this process's environment
///   (or exactly the given one), a working directory, and where each standard stream goes
///   (``Input``, ``Output``).
/// - Output: each captured stream is read on a thread of its own from the start, so a full pipe
///   never blocks the child, and never on the cooperative pool or a Dispatch worker (an emulator
///   in the test process needs those). A test awaits what it expects instead of sleeping:
///   ``nextLine()``, ``firstLine(where:)``, ``waitForOutput(where:)``.
/// - Ending: ``wait()`` returns once the process exited and its captured output was read to the
///   end. A `timeLimit` kills it with SIGKILL (SIGTERM can be blocked in a child of the test
///   runner); so does dropping the last reference to a process still running, so a test that
///   ends early (a failed `#require`, a thrown error) leaves nothing behind.
/// - Every wait is cancellable: cancelling the waiting task throws `CancellationError` at once
///   (the process keeps running until killed or dropped).
/// - On failure, interpolate ``Result`` (its `description`) or ``transcript`` into the
///   expectation's message: the test's log then shows what the process wrote.
public final class TestProcess: Sendable {
    /// The process id.
    public let pid: Int32

    /// Held so Foundation's monitoring of the child lives as long as this object.
    private let process: Process
    private let record: ProcessRecord
    private let input: FileHandle?
    private let timeLimitTask: Task<Void, Never>?

    /// Starts `executable arguments…`.
    ///
    /// - Parameters:
    ///   - executable: The path of the program (no `PATH` search).
    ///   - arguments: Its arguments.
    ///   - environment: Changes to the environment: a value sets a variable, `nil` removes it.
    ///   - inheritsEnvironment: When true (the default) the changes apply to this process's
    ///     environment; when false the child gets exactly the non-nil values of `environment`.
    ///   - currentDirectory: Its working directory (this process's when nil).
    ///   - input: Its standard input (`/dev/null` by default).
    ///   - output: Its standard output (captured by default).
    ///   - error: Its standard error (captured by default).
    ///   - timeLimit: When set, the process is killed (SIGKILL) if it still runs after this long,
    ///     and ``Result/timedOut`` says so.
    /// - Throws: What `Process.run()` throws when the program cannot be started.
    public init(
        _ executable: String,
        _ arguments: [String] = [],
        environment: [String: String?] = [:],
        inheritsEnvironment: Bool = true,
        currentDirectory: URL? = nil,
        input: Input = .none,
        output: Output = .capture,
        error: Output = .capture,
        timeLimit: Duration? = nil
    ) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var variables = inheritsEnvironment ? ProcessInfo.processInfo.environment : [:]
        for (name, value) in environment { variables[name] = value }
        process.environment = variables
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }

        let record = ProcessRecord(capturesStdout: output.captures, capturesStderr: error.captures)
        var inputPipe: Pipe?
        switch input {
        case .none: process.standardInput = FileHandle.nullDevice
        case .pipe, .bytes:
            let pipe = Pipe()
            process.standardInput = pipe
            inputPipe = pipe
        }
        var readers: [(FileHandle, ProcessRecord.Stream)] = []
        let outputPipe = Pipe(), errorPipe = Pipe()
        switch output {
        case .capture:
            process.standardOutput = outputPipe
            readers.append((outputPipe.fileHandleForReading, .stdout))
        case .discard: process.standardOutput = FileHandle.nullDevice
        case .handle(let handle): process.standardOutput = handle
        case .standardOutput: preconditionFailure("standard output cannot go to itself")
        }
        switch error {
        case .capture:
            process.standardError = errorPipe
            readers.append((errorPipe.fileHandleForReading, .stderr))
        case .discard: process.standardError = FileHandle.nullDevice
        case .handle(let handle): process.standardError = handle
        case .standardOutput:
            precondition(output.captures, "standard error joins standard output only when that is captured")
            process.standardError = outputPipe
        }
        process.terminationHandler = { process in
            let ending = (process.terminationStatus, process.terminationReason == .uncaughtSignal)
            record.update { $0.exit = ending }
        }

        try process.run()
        for (handle, stream) in readers {
            Thread.detachNewThread {
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    record.update { $0.append(chunk, to: stream) }
                }
                record.update { $0.end(stream) }
            }
        }
        let pid = process.processIdentifier
        if case .bytes(let bytes) = input, let handle = inputPipe?.fileHandleForWriting {
            Thread.detachNewThread {
                handle.write(bytes)
                try? handle.close()
            }
            self.input = nil
        } else {
            self.input = inputPipe?.fileHandleForWriting
        }
        self.pid = pid
        self.process = process
        self.record = record
        timeLimitTask = timeLimit.map { limit in
            Task {
                guard (try? await Task.sleep(for: limit)) != nil else { return }
                record.update { state in
                    guard state.exit == nil else { return }
                    state.timedOut = true
                    deliver(SIGKILL, to: pid)
                }
            }
        }
    }

    /// Runs `executable arguments…` to its end: ``init(_:_:environment:inheritsEnvironment:currentDirectory:input:output:error:timeLimit:)``
    /// then ``wait()``, with both streams captured.
    /// - Throws: What launching throws; `CancellationError` when the task is cancelled while
    ///   waiting (the process is then killed).
    public static func run(
        _ executable: String,
        _ arguments: [String] = [],
        environment: [String: String?] = [:],
        currentDirectory: URL? = nil,
        input: Input = .none,
        timeLimit: Duration? = nil
    ) async throws -> Result {
        try await TestProcess(executable, arguments, environment: environment, currentDirectory: currentDirectory, input: input,
                              timeLimit: timeLimit).wait()
    }

    /// Runs `executable arguments…` to its end, blocking the calling thread (for synchronous
    /// contexts only, such as a probe behind an `.enabled(if:)` condition); nil when it cannot
    /// be started.
    public static func runSynchronously(_ executable: String, _ arguments: [String] = []) -> Result? {
        try? TestProcess(executable, arguments).waitSynchronously()
    }

    /// Kills a process still running when the test lets go of it.
    deinit {
        timeLimitTask?.cancel()
        if record.current.exit == nil { deliver(SIGKILL, to: pid) }
    }

    // MARK: Input

    /// Writes `text` (UTF-8) to standard input (``Input/pipe`` only). Blocks only if the child
    /// leaves a full pipe (64 KiB) unread.
    public func write(_ text: String) {
        write(Data(text.utf8))
    }

    /// Writes `data` to standard input (``Input/pipe`` only).
    public func write(_ data: Data) {
        precondition(input != nil, "standard input is not a pipe")
        input?.write(data)
    }

    /// Closes standard input: the process reads end of input.
    public func closeInput() {
        try? input?.close()
    }

    // MARK: Output

    /// Everything written to captured standard output so far (UTF-8).
    public var output: String { String(decoding: record.current.stdout, as: UTF8.self) }

    /// Everything written to captured standard error so far (UTF-8).
    public var errorOutput: String { String(decoding: record.current.stderr, as: UTF8.self) }

    /// What the process wrote so far to its captured streams, for a failed expectation's message.
    public var transcript: String { "--- stdout\n\(output)\n--- stderr\n\(errorOutput)" }

    /// The next unread line of standard output, without its newline; nil once the output ended
    /// and every line was read (a last line without a newline is returned too).
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    public func nextLine() async throws -> String? {
        while true {
            try await record.wait { $0.stdout[$0.lineStart...].contains(0x0A) || $0.stdoutEnded }
            let taken: String?? = record.take { state in
                let rest = state.stdout[state.lineStart...]
                if let newline = rest.firstIndex(of: 0x0A) {
                    state.lineStart = newline + 1
                    return String(decoding: rest[..<newline], as: UTF8.self)
                }
                guard state.stdoutEnded else { return .some(nil) }  // taken by another waiter: wait again
                guard !rest.isEmpty else { return .none }
                state.lineStart = state.stdout.endIndex
                return String(decoding: rest, as: UTF8.self)
            }
            switch taken {
            case .none: return nil
            case .some(.none): continue
            case .some(.some(let line)): return line
            }
        }
    }

    /// Reads lines of standard output until one satisfies `predicate` and returns it (the lines
    /// before it are consumed); nil when the output ends first.
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    public func firstLine(where predicate: (String) -> Bool) async throws -> String? {
        while let line = try await nextLine() {
            if predicate(line) { return line }
        }
        return nil
    }

    /// Reads lines of standard output up to and including the first that satisfies `last`
    /// (all of them when the output ends first).
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    public func lines(through last: (String) -> Bool) async throws -> [String] {
        var collected: [String] = []
        while let line = try await nextLine() {
            collected.append(line)
            if last(line) { break }
        }
        return collected
    }

    /// Waits until everything written to standard output so far satisfies `predicate`; returns
    /// false when the output ended without it. Reads no line (``nextLine()`` is unaffected).
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    @discardableResult
    public func waitForOutput(where predicate: @escaping @Sendable (String) -> Bool) async throws -> Bool {
        try await record.wait { $0.stdoutEnded || predicate(String(decoding: $0.stdout, as: UTF8.self)) }
        return predicate(output)
    }

    // MARK: Signals and ending

    /// Sends `signal` (a no-op once the process ended).
    public func send(_ signal: Int32) {
        record.take { state in
            if state.exit == nil { deliver(signal, to: pid) }
        }
    }

    /// Sends SIGINT, as Ctrl-C would.
    public func interrupt() { send(SIGINT) }

    /// Sends SIGTERM.
    public func terminate() { send(SIGTERM) }

    /// Sends SIGKILL.
    public func kill() { send(SIGKILL) }

    /// True until the process exited.
    public var isRunning: Bool { record.current.exit == nil }

    /// Waits until the process exited and its captured output was read to the end.
    /// - Returns: How it ended and everything it wrote to the captured streams.
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    @discardableResult
    public func wait() async throws -> Result {
        try await record.wait { $0.finished }
        timeLimitTask?.cancel()
        return result
    }

    /// Blocks the calling thread until the process exited and its output was read (for
    /// synchronous contexts only, such as an `.enabled(if:)` condition; never in async code).
    public func waitSynchronously() -> Result {
        record.block { $0.finished }
        timeLimitTask?.cancel()
        return result
    }

    private var result: Result {
        let state = record.current
        let ending = state.exit ?? (status: -1, killedBySignal: false)
        return Result(status: ending.status, killedBySignal: ending.killedBySignal, timedOut: state.timedOut,
                      stdout: String(decoding: state.stdout, as: UTF8.self), stderr: String(decoding: state.stderr, as: UTF8.self))
    }
}

extension TestProcess.Output {
    fileprivate var captures: Bool {
        if case .capture = self { return true }
        return false
    }
}

/// Sends `signal` to the process `pid`.
private func deliver(_ signal: Int32, to pid: Int32) {
    #if canImport(Glibc)
    _ = Glibc.kill(pid, signal)
    #else
    _ = Darwin.kill(pid, signal)
    #endif
}
