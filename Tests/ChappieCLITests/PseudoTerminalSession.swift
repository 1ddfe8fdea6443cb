import Foundation

/// A running `chappie` with a pseudo-terminal as its standard input, output and error, that a
/// test types into as a person would: util-linux `script -qfec "exec COMMAND" /dev/null` owns the
/// terminal, and what the test writes to `script`'s standard input reaches the terminal's input,
/// so `\r` ends a line, Ctrl-C (`\u{03}`) makes the terminal send SIGINT to the program, and
/// Ctrl-D (`\u{04}`) ends its input. What the program (and the terminal's echo) writes is
/// collected, and the test awaits text in it instead of sleeping. `NO_COLOR=1` keeps styling out.
final class PseudoTerminalSession: @unchecked Sendable {
    // Sound: `output` and `waiters` are only touched while holding `lock`; `process` and `input`
    // are used from the test task only.
    private let process = Process()
    private let input = Pipe()
    private let lock = NSLock()
    private var output = ""
    private var ended = false
    private var waiters: [(predicate: (String) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = []

    /// Starts `chappie arguments…` on a pseudo-terminal with `environment` added.
    init(_ arguments: [String], environment: [String: String]) throws {
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        for (key, value) in environment { env[key] = value }
        // `script` runs the command with `$SHELL -c`; `exec` makes chappie the terminal's only
        // process. Without it a shell that does not exec its last command itself (dash, the
        // /bin/sh of Debian, used when SHELL is unset) stays in the foreground process group,
        // gets every Ctrl-C too, and after chappie exits 0 reports the SIGINT as status 130.
        let command = "exec " + ([CLIProcess.binary.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
            .joined(separator: " ")
        process.executableURL = CLIProcess.script
        process.arguments = ["-qfec", command, "/dev/null"]
        process.environment = env
        let pipe = Pipe()
        process.standardInput = input
        process.standardOutput = pipe
        process.standardError = pipe
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                append(String(decoding: chunk, as: UTF8.self))
            }
            finish()
        }
        try process.run()
    }

    /// Types `text` (use `\r` for Enter, `\u{03}` for Ctrl-C, `\u{04}` for Ctrl-D).
    func type(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
    }

    /// Everything shown so far, with the terminal's CRLF line ends made LF.
    var shown: String {
        lock.lock()
        defer { lock.unlock() }
        return output
    }

    /// Waits until what was shown satisfies `predicate`; false when the program ended first.
    @discardableResult
    func waitUntil(_ predicate: @escaping (String) -> Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            lock.lock()
            if predicate(output) {
                lock.unlock()
                continuation.resume(returning: true)
            } else if ended {
                lock.unlock()
                continuation.resume(returning: false)
            } else {
                waiters.append((predicate, continuation))
                lock.unlock()
            }
        }
    }

    /// Waits until `text` was shown at least `count` times.
    @discardableResult
    func waitFor(_ text: String, count: Int = 1) async -> Bool {
        await waitUntil { $0.components(separatedBy: text).count - 1 >= count }
    }

    /// Waits for the program to exit and for the terminal's last output to be read (so ``shown``
    /// holds everything the program printed), and returns its exit status.
    func wait() async -> Int32 {
        await CLIProcess.waitForExit(process)
        _ = await waitUntil { _ in false }  // returns once the reader reached the end of output
        return process.terminationStatus
    }

    /// Kills the program if it still runs (cleanup after a failed expectation).
    func terminate() {
        if process.isRunning { process.terminate() }
    }

    private func append(_ text: String) {
        lock.lock()
        output += text.replacingOccurrences(of: "\r\n", with: "\n")
        let current = output
        var ready: [CheckedContinuation<Bool, Never>] = []
        waiters.removeAll { waiter in
            guard waiter.predicate(current) else { return false }
            ready.append(waiter.continuation)
            return true
        }
        lock.unlock()
        for continuation in ready { continuation.resume(returning: true) }
    }

    private func finish() {
        lock.lock()
        ended = true
        let pending = waiters
        waiters.removeAll()
        lock.unlock()
        for waiter in pending { waiter.continuation.resume(returning: false) }
    }
}
