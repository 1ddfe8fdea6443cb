import ChappieTestSupport
import Foundation

/// Runs one test of this test bundle in a child process, for tests that need a second writer
/// process or one to kill.
///
/// How it works: the parent re-launches the running test binary (`CommandLine.arguments[0]`)
/// with `--filter <suite> --testing-library swift-testing` and the environment variable
/// ``roleVariable`` naming a role. Tests in the child suite are enabled only when that variable
/// holds their role, so in a normal run they are skipped, and in the child only the chosen one
/// runs. The child reports progress as lines starting with ``marker`` on standard output (mixed
/// with the test runner's own output, which the parent ignores), and reads `go` lines from
/// standard input when it must wait for the parent. No sleeps: the parent awaits lines and exit
/// (the child runs as a ``TestProcess``).
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

    private let process: TestProcess

    /// Starts the test binary running `suite` with `role` and the named `arguments` (its
    /// standard error discarded).
    init(suite: String, role: String, arguments: [String: String]) throws {
        var environment: [String: String?] = [Self.roleVariable: role]
        for (name, value) in arguments { environment["CHAPPIE_RUNTIME_TEST_CHILD_\(name)"] = value }
        process = try TestProcess(CommandLine.arguments[0], ["--filter", suite, "--testing-library", "swift-testing"], environment: environment,
                                  input: .pipe, error: .discard)
    }

    /// The child's process id.
    var pid: Int32 { process.pid }

    /// Waits for the first progress line (without the marker) for which `accept` is true; nil if
    /// the output ends first.
    func firstLine(where accept: (String) -> Bool) async throws -> String? {
        try await process.firstLine { $0.hasPrefix(Self.marker) && accept(String($0.dropFirst(Self.marker.count))) }
            .map { String($0.dropFirst(Self.marker.count)) }
    }

    /// Lets a child waiting in ``waitForGo()`` continue.
    func go() {
        process.write("go\n")
    }

    /// Sends SIGKILL.
    func kill() {
        process.kill()
    }

    /// Waits for the child to end; returns how it ended.
    func waitForExit() async throws -> TestProcess.Result {
        try await process.wait()
    }
}
