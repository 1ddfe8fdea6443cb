import Foundation

extension TestProcess {
    /// How a test process ended and everything it wrote to its captured streams.
    public struct Result: Sendable, Equatable, CustomStringConvertible {
        /// The exit status, or the number of the signal that killed it (see ``killedBySignal``).
        public var status: Int32
        /// True when a signal ended the process (``status`` is then the signal number).
        public var killedBySignal: Bool
        /// True when the time limit given at launch killed the process.
        public var timedOut: Bool
        /// Everything written to standard output (UTF-8; empty unless captured).
        public var stdout: String
        /// Everything written to standard error (UTF-8; empty unless captured separately).
        public var stderr: String

        /// True when the process exited by itself with status 0.
        public var succeeded: Bool { !killedBySignal && status == 0 }

        /// The ending and both streams, for a failed expectation's message, so the test's log
        /// shows what the process said.
        public var description: String {
            let ending = killedBySignal ? "killed by signal \(status)" : "exit status \(status)"
            return "\(ending)\(timedOut ? " (time limit)" : "")\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)"
        }
    }
}
