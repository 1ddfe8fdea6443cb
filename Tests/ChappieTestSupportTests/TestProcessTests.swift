import ChappieTestSupport
import Foundation
import Testing

/// TestProcess, the runner every test's child process goes through: what it promises the tests
/// that lean on it (no deadlock on full pipes, awaited output, cancellable waits, no process left
/// behind).
@Suite("TestProcess runs a child process for a test")
struct TestProcessTests {
    @Test("arguments, working directory and input bytes reach the child", .timeLimit(.minutes(1)))
    func launch() async throws {
        let folder = FileManager.default.temporaryDirectory.resolvingSymlinksInPath()
        let result = try await TestProcess.run("/bin/sh", ["-c", #"printf '%s|' "$1"; pwd; cat"#, "sh", "one two"], currentDirectory: folder,
                                               input: .text("from stdin"))
        #expect(result.succeeded, "\(result)")
        #expect(result.stdout == "one two|\(folder.path)\nfrom stdin")
    }

    @Test("environment changes apply to this process's environment: a value sets, nil removes", .timeLimit(.minutes(1)))
    func environmentChanges() async throws {
        let inherited = ProcessInfo.processInfo.environment
        try #require(inherited["PATH"] != nil)
        let result = try await TestProcess("/usr/bin/env", environment: ["CHAPPIE_TP_SET": "set", "PATH": nil]).wait()
        let lines = Set(result.stdout.split(separator: "\n").map(String.init))
        #expect(lines.contains("CHAPPIE_TP_SET=set"))
        #expect(!lines.contains { $0.hasPrefix("PATH=") })
        // and the others are inherited
        let other = try #require(inherited.first { $0.key != "PATH" && !$0.value.contains("\n") })
        #expect(lines.contains("\(other.key)=\(other.value)"))
    }

    @Test("only the given variables without inheritsEnvironment", .timeLimit(.minutes(1)))
    func exactEnvironment() async throws {
        let result = try await TestProcess("/usr/bin/env", environment: ["ONLY": "this"], inheritsEnvironment: false).wait()
        #expect(result.stdout == "ONLY=this\n")
    }

    @Test("a megabyte on each stream while the test waits: no deadlock on full pipes, nothing lost", .timeLimit(.minutes(1)))
    func largeOutput() async throws {
        let script = "head -c 1048576 /dev/zero | tr '\\0' a; head -c 1048576 /dev/zero | tr '\\0' b >&2; exit 3"
        let result = try await TestProcess("/bin/sh", ["-c", script]).wait()
        #expect(result.status == 3 && !result.killedBySignal)
        #expect(result.stdout.utf8.count == 1_048_576 && result.stdout.allSatisfy { $0 == "a" })
        #expect(result.stderr.utf8.count == 1_048_576 && result.stderr.allSatisfy { $0 == "b" })
    }

    @Test("lines are awaited as the child writes them; standard error can join standard output", .timeLimit(.minutes(1)))
    func awaitedLines() async throws {
        // given: a child that answers each line it reads
        let child = try TestProcess("/bin/sh", ["-c", #"echo ready; while read line; do echo "got $line" >&2; done; printf 'last'"#],
                                    input: .pipe, error: .standardOutput)
        // when / then: nothing is sent before the child said it is ready
        #expect(try await child.nextLine() == "ready")
        child.write("one\n")
        #expect(try await child.firstLine { $0.hasPrefix("got") } == "got one")
        child.write("two\n")
        #expect(try await child.waitForOutput { $0.contains("got two") })
        child.closeInput()
        #expect(try await child.lines(through: { _ in false }) == ["got two", "last"])
        #expect(try await child.nextLine() == nil)
        #expect(try await child.wait().succeeded)
    }

    @Test("a cancelled wait ends at once with CancellationError; the process runs on until killed", .timeLimit(.minutes(1)))
    func cancelledWait() async throws {
        let child = try TestProcess("/bin/cat", input: .pipe)
        let waiting = Task { try await child.nextLine() }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(child.isRunning)
        child.kill()
        let result = try await child.wait()
        #expect(result.killedBySignal && result.status == SIGKILL)
    }

    @Test("a time limit kills the process and says so", .timeLimit(.minutes(1)))
    func timeLimit() async throws {
        let result = try await TestProcess("/bin/cat", input: .pipe, timeLimit: .milliseconds(200)).wait()
        #expect(result.timedOut && result.killedBySignal && result.status == SIGKILL, "\(result)")
    }

    @Test("a process the test lets go of is killed", .timeLimit(.minutes(1)))
    func killedWhenDropped() async throws {
        // given: a child that idles forever, its standard output a pipe the test holds
        let pipe = Pipe()
        var child: TestProcess? = try TestProcess("/usr/bin/tail", ["-f", "/dev/null"], output: .handle(pipe.fileHandleForWriting))
        try pipe.fileHandleForWriting.close()
        let pid = try #require(child?.pid)
        #expect(child?.isRunning == true)
        // when
        child = nil
        // then: its end of the pipe closes, as it does when the process ends. The read blocks, so a
        // watchdog ends a child that outlived its release (failing the test instead of hanging it).
        let watchdog = Task {
            guard (try? await Task.sleep(for: .seconds(30))) != nil else { return false }
            _ = kill(pid, SIGKILL)
            return true
        }
        let handle = pipe.fileHandleForReading
        let rest = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: handle.readDataToEndOfFile()) }
        }
        watchdog.cancel()
        #expect(await watchdog.value == false, "the released process still ran 30 s later")
        #expect(rest.isEmpty)
    }

    @Test("synchronous runs for .enabled(if:) probes", .timeLimit(.minutes(1)))
    func synchronous() {
        #expect(TestProcess.runSynchronously("/bin/sh", ["-c", "echo yes"])?.stdout == "yes\n")
        #expect(TestProcess.runSynchronously("/bin/sh", ["-c", "exit 1"])?.succeeded == false)
        #expect(TestProcess.runSynchronously("/nonexistent/program") == nil)
    }

    @Test("HeldHandler holds its caller until released", .timeLimit(.minutes(1)))
    func heldHandler() async {
        let handler = HeldHandler()
        let held = Task { await handler.hold(); return "released" }
        await handler.waitUntilHeld()
        await handler.release()
        #expect(await held.value == "released")
    }
}
