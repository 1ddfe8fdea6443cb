import Foundation

/// Decides what Ctrl-C (SIGINT) does. Without a handler it cancels the whole command (exit 130);
/// `chat` installs one so that Ctrl-C during a turn cancels only that turn and Ctrl-C at the prompt
/// clears the line, as a shell does. SIGTERM always stops the command.
final class InterruptRouter: @unchecked Sendable {
    // Sound: `handler` is only read and written while holding `lock`; the handler itself is
    // `@Sendable` and runs outside the lock, on the signal source's queue.
    private let lock = NSLock()
    private var handler: (@Sendable () -> Bool)?

    /// The process-wide router the signal handler of `ChappieCommand.main` consults.
    static let shared = InterruptRouter()

    /// Sets what Ctrl-C does: `handler` returns true when it dealt with the interrupt, false to
    /// let it stop the command; nil restores the default.
    func setHandler(_ handler: (@Sendable () -> Bool)?) {
        lock.lock()
        self.handler = handler
        lock.unlock()
    }

    /// Called for each SIGINT; true when a handler dealt with it (the command keeps running).
    func interrupt() -> Bool {
        lock.lock()
        let current = handler
        lock.unlock()
        return current?() ?? false
    }
}
