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

    /// Writes `text` to standard output at once (no newline added).
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes a line to standard output.
    static func line(_ text: String = "") { write(text + "\n") }

    /// Writes a line to standard error.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
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
