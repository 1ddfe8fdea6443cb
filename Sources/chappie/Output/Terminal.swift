import ChappieSDK
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to standard output and standard error, with colour, spinners and cursor moves only on a
/// terminal and without `NO_COLOR`.
enum Terminal {
    /// Standard output is a terminal.
    static let stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
    /// Standard input is a terminal.
    static let stdinIsTerminal = isatty(STDIN_FILENO) == 1
    /// Colour, spinners and cursor moves are allowed on standard output: it is a terminal and
    /// `NO_COLOR` is not set to a non-empty value (https://no-color.org: an empty value counts as unset).
    static let colors = stdoutIsTerminal && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty

    /// Writes `text` to standard output at once (no newline added). When standard output cannot
    /// take it, the process ends instead of crashing: a reader that went away (`EPIPE`) ends it
    /// quietly, as `SIGPIPE` does any command in a pipeline (status 141 in a shell); any other
    /// failure (a full disk, a closed descriptor) prints `chappie: cannot write output: REASON`
    /// on standard error and exits with status 1.
    static func write(_ text: String) {
        let closed = ProcessHardening.closedStandardDescriptors.contains(STDOUT_FILENO)
        guard let failure = closed ? EBADF : writeAll(STDOUT_FILENO, text) else { return }
        if failure == EPIPE {
            // SIGPIPE may be ignored (then the write returned EPIPE): die of it as a pipeline expects.
            signal(SIGPIPE, SIG_DFL)
            raise(SIGPIPE)
            ChappieCommand.terminateNow(128 + SIGPIPE)
        }
        _ = writeAll(STDERR_FILENO, "chappie: cannot write output: \(String(cString: strerror(failure)))\n")
        ChappieCommand.terminateNow(1)
    }

    /// Writes a line to standard output.
    static func line(_ text: String = "") { write(text + "\n") }

    /// Writes `value` as one line of JSON (`--json` output) to standard output. JSON escapes the
    /// C0 controls itself; DEL, the C1 controls (U+009B is a one-character CSI) and the
    /// bidirectional formatting characters are written as `\u` escapes too, so the line means the
    /// same to a JSON reader while no byte of it can drive or reorder a terminal that shows it.
    static func jsonLine(_ value: ChappieJSONValue) { line(TerminalSanitizer.escapingForJSON(value.jsonString)) }

    /// Writes a line to standard error; a failure there is ignored (there is nowhere left to say so).
    static func error(_ text: String) {
        _ = writeAll(STDERR_FILENO, text + "\n")
    }

    /// Writes all of `text` to `descriptor` with `write(2)`, again after a partial write or
    /// `EINTR`; returns nil, or the `errno` of the write that failed.
    private static func writeAll(_ descriptor: Int32, _ text: String) -> Int32? {
        var text = text
        return text.withUTF8 { bytes -> Int32? in
            guard let base = bytes.baseAddress else { return nil }
            var offset = 0
            while offset < bytes.count {
                #if canImport(Glibc)
                let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
                #else
                let written = Darwin.write(descriptor, base + offset, bytes.count - offset)
                #endif
                if written >= 0 {
                    offset += written
                } else if errno != EINTR {
                    return errno
                }
            }
            return nil
        }
    }

    /// `text` in bold when colours are on.
    static func bold(_ text: String) -> String { colors ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    /// `text` dimmed when colours are on.
    static func dim(_ text: String) -> String { colors ? "\u{1B}[2m\(text)\u{1B}[0m" : text }

    /// `text` without escape sequences, control characters (other than newline and tab) or
    /// bidirectional overrides, so untrusted text cannot drive the terminal (``TerminalSanitizer``).
    static func sanitized(_ text: String) -> String { TerminalSanitizer.clean(text) }

    /// ``sanitized(_:)`` on one line: newlines and tabs become spaces.
    static func sanitizedLine(_ text: String) -> String { TerminalSanitizer.cleanLine(text) }

    /// A bar of `width` cells filled to `percent` (0–100).
    static func bar(percent: Double, width: Int = 20) -> String {
        let filled = Int((min(max(percent, 0), 100) / 100 * Double(width)).rounded())
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
    }
}
