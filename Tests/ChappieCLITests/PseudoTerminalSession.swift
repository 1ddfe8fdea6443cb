import ChappieTestSupport
import Foundation

/// A running `chappie` with a pseudo-terminal as its standard input, output and error, that a
/// test types into as a person would: util-linux `script -qfec "exec COMMAND" /dev/null` owns the
/// terminal, and what the test writes to `script`'s standard input reaches the terminal's input,
/// so `\r` ends a line, Ctrl-C (`\u{03}`) makes the terminal send SIGINT to the program, and
/// Ctrl-D (`\u{04}`) ends its input. What the program (and the terminal's echo) writes is
/// collected by the ``TestProcess`` running `script`, and the test awaits text in it instead of
/// sleeping. `NO_COLOR=1` keeps styling out.
final class PseudoTerminalSession: Sendable {
    private let process: TestProcess

    /// Starts `chappie arguments…` on a pseudo-terminal with `environment` added.
    init(_ arguments: [String], environment: [String: String]) throws {
        var changes: [String: String?] = ["NO_COLOR": "1"]
        for (key, value) in environment { changes[key] = value }
        // `script` runs the command with `$SHELL -c`; `exec` makes chappie the terminal's only
        // process. Without it a shell that does not exec its last command itself (dash, the
        // /bin/sh of Debian, used when SHELL is unset) stays in the foreground process group,
        // gets every Ctrl-C too, and after chappie exits 0 reports the SIGINT as status 130.
        let command = "exec " + ([CLIProcess.binary.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
            .joined(separator: " ")
        process = try TestProcess(CLIProcess.script.path, ["-qfec", command, "/dev/null"], environment: changes, input: .pipe,
                                  error: .standardOutput)
    }

    /// Types `text` (use `\r` for Enter, `\u{03}` for Ctrl-C, `\u{04}` for Ctrl-D).
    func type(_ text: String) {
        process.write(text)
    }

    /// Everything shown so far, with the terminal's CRLF line ends made LF.
    var shown: String { Self.lineFeeds(process.output) }

    /// Waits until what was shown satisfies `predicate`; false when the program ended first (or
    /// the test was cancelled).
    @discardableResult
    func waitUntil(_ predicate: @escaping @Sendable (String) -> Bool) async -> Bool {
        (try? await process.waitForOutput { predicate(Self.lineFeeds($0)) }) ?? false
    }

    /// Waits until `text` was shown at least `count` times.
    @discardableResult
    func waitFor(_ text: String, count: Int = 1) async -> Bool {
        await waitUntil { $0.components(separatedBy: text).count - 1 >= count }
    }

    /// Waits for the program to exit and for the terminal's last output to be read (so ``shown``
    /// holds everything the program printed), and returns its exit status (-1 when the test was
    /// cancelled first).
    func wait() async -> Int32 {
        (try? await process.wait().status) ?? -1
    }

    /// Kills the program if it still runs (cleanup after a failed expectation).
    func terminate() {
        process.terminate()
    }

    private static func lineFeeds(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n")
    }
}
