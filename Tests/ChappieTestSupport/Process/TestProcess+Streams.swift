import Foundation

extension TestProcess {
    /// What a test process reads as standard input.
    public enum Input: Sendable {
        /// `/dev/null`: the process sees end of input at once.
        case none
        /// A pipe the test writes to with ``TestProcess/write(_:)`` and ends with ``TestProcess/closeInput()``.
        case pipe
        /// These bytes, then end of input (written on a thread of their own, so a process that
        /// reads late never blocks the test).
        case bytes(Data)

        /// The UTF-8 bytes of `text`, then end of input.
        public static func text(_ text: String) -> Input { .bytes(Data(text.utf8)) }
    }

    /// Where a test process's standard output or standard error goes.
    public enum Output: Sendable {
        /// Into a pipe the test reads: collected in ``TestProcess/Result``, awaitable while the
        /// process runs (``TestProcess/nextLine()``, ``TestProcess/waitForOutput(where:)``).
        case capture
        /// `/dev/null`.
        case discard
        /// This file handle (the caller keeps it open while the process runs).
        case handle(FileHandle)
        /// Standard error only: into the same pipe as standard output (which must be
        /// ``capture``), interleaved as written, as a terminal shows it.
        case standardOutput
    }
}
