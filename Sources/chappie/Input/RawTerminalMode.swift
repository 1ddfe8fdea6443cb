import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Switches a terminal's input to raw mode for ``LineEditor`` and back: no line buffering and no
/// echo (the editor draws the line), while Ctrl-C still sends SIGINT and output still turns `\n`
/// into CR LF. The terminal's settings are put back by ``restore()``, which
/// `ChappieCommand.terminate(_:)` and `terminateNow(_:)` also call, so no exit leaves the user's shell in raw mode.
enum RawTerminalMode {
    /// The settings before ``enable(_:)``, and their descriptor; nil when not in raw mode.
    private nonisolated(unsafe) static var saved: (descriptor: Int32, settings: termios)?
    // Sound: `saved` is only read and written while holding `lock`.
    private static let lock = NSLock()

    /// Puts the terminal on `descriptor` in raw mode; false when it is not a terminal or refuses.
    static func enable(_ descriptor: Int32) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard saved == nil else { return true }
        var settings = termios()
        guard isatty(descriptor) == 1, tcgetattr(descriptor, &settings) == 0 else { return false }
        var raw = settings
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(descriptor, TCSANOW, &raw) == 0 else { return false }
        saved = (descriptor, settings)
        return true
    }

    /// Puts back the settings ``enable(_:)`` changed; nothing when it did not.
    static func restore() {
        lock.lock()
        defer { lock.unlock() }
        guard var previous = saved else { return }
        _ = tcsetattr(previous.descriptor, TCSANOW, &previous.settings)
        saved = nil
    }
}
