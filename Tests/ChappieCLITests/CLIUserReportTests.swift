import ChappieEmulator
import ChappieSDK
import ChappieTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `chappie arguments…` with `stdout` as its standard output (a file, or the write end of a
/// pipe whose read end is closed); standard input is `/dev/null`.
private func run(_ arguments: [String], stdout: FileHandle, environment: [String: String]) async throws -> TestProcess.Result {
    try await TestProcess(CLIProcess.binary.path, arguments, environment: environment, output: .handle(stdout)).wait()
}

/// The second round of a fresh user's findings: each as they met it.
@Suite("chappie as a fresh user found it, second round")
struct CLIUserReportTests {
    // MARK: 1. Exit while a WebSocket thread still runs

    @Test("models, status and usage with the default (auto) transport exit 0 every time: no crash in exit handlers",
          .timeLimit(.minutes(3)))
    func noCrashAtExit() async throws {
        try await CLIEmulator.with { emulator, isolated in
            try await CLIEmulator.signIn(emulator, environment: isolated)
            var environment = isolated
            environment["CHAPPIE_TRANSPORT"] = "auto"
            let runs = Array(repeating: ["models", "--json"], count: 20) + Array(repeating: ["status", "--json"], count: 10)
                + Array(repeating: ["usage", "--json"], count: 10)
            for (index, command) in runs.enumerated() {
                let result = try await CLIProcess.run(command + CLIEmulator.endpointArguments(emulator), environment: environment)
                try #require(result.status == 0, "run \(index + 1), \(command): status \(result.status), stderr: \(result.stderr)")
                let lines = try result.jsonLines()
                #expect(!lines.isEmpty && lines.allSatisfy { $0.objectValue != nil }, "run \(index + 1): \(result.stdout)")
            }
        }
    }

    // MARK: 2. Standard output that cannot be written

    @Test("a full standard output ends the command with one line on standard error and status 1, never a crash",
          .timeLimit(.minutes(1)), arguments: [["help"], ["--version"], ["threads", "list"], ["ask", "--emulator", "hi"],
                                               ["ask", "--emulator", "--json", "hi"]])
    func fullStandardOutput(arguments: [String]) async throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let ending = try await run(arguments, stdout: full, environment: CLIProcess.isolatedEnvironment())
        #expect(ending.status == 1 && !ending.killedBySignal, "stderr: \(ending.stderr)")
        let lines = ending.stderr.split(separator: "\n")
        #expect(lines.last == "chappie: cannot write output: \(String(cString: strerror(ENOSPC)))", "stderr: \(ending.stderr)")
        #expect(lines.filter { $0.contains("cannot write output") }.count == 1)
        #expect(!ending.stderr.contains("Fatal error") && !ending.stderr.localizedCaseInsensitiveContains("backtrace"))
    }

    @Test("a closed standard output is an error, and its descriptor is never reused for another file", .timeLimit(.minutes(1)))
    func closedStandardOutput() async throws {
        let process = try TestProcess("/bin/sh", ["-c", #"exec "$0" "$@" >&-"#, CLIProcess.binary.path, "threads", "list"],
                                      environment: CLIProcess.isolatedEnvironment())
        let result = try await process.wait()
        let stderr = result.stderr
        #expect(result.status == 1 && !result.killedBySignal, "stderr: \(stderr)")
        #expect(stderr == "chappie: cannot write output: \(String(cString: strerror(EBADF)))\n")
    }

    @Test("a reader that went away ends the command quietly, as SIGPIPE ends any command in a pipeline", .timeLimit(.minutes(1)))
    func readerGone() async throws {
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let ending = try await run(["help"], stdout: pipe.fileHandleForWriting, environment: CLIProcess.isolatedEnvironment())
        #expect(ending.killedBySignal && ending.status == SIGPIPE, "status \(ending.status), stderr: \(ending.stderr)")
        #expect(ending.stderr.isEmpty)
    }

    // MARK: 3. chat goes on after a failed turn

    @Test("chat reports a turn's server or network error as ask does and goes on with the next prompt", .timeLimit(.minutes(1)),
          arguments: [false, true])
    func chatGoesOnAfterAnError(json: Bool) async throws {
        try await CLIEmulator.with { emulator, environment in
            try await CLIEmulator.signIn(emulator, environment: environment)
            await emulator.enqueue(.failed(code: "server_error", message: "the model fell over"))
            await emulator.enqueue(.failed(code: "server_error", message: "and again"))
            let chat = try await CLIProcess.run(["chat"] + (json ? ["--json"] : []) + CLIEmulator.endpointArguments(emulator),
                                                stdin: "first try\nsecond try\nthird try\n", environment: environment)
            #expect(chat.status == 0, "stderr: \(chat.stderr)")
            if json {
                let events = try chat.jsonLines()
                let errors = events.filter { $0["event"] == "error" }
                #expect(errors.count == 2, "\(chat.stdout)")
                #expect(errors.first?["message"]?.stringValue?.contains("the model fell over") == true)
                #expect(errors.allSatisfy { $0["exit_status"] == .integer(5) })
                #expect(events.last?["event"] == "completed")
                #expect(events.last?["text"]?.stringValue == ChappieEmulator.defaultReply(for: "third try"))
            } else {
                let errors = chat.stderr.split(separator: "\n").filter { $0.hasPrefix("chappie: ") }
                #expect(errors.count == 2 && errors.first?.contains("the model fell over") == true, "stderr: \(chat.stderr)")
                #expect(chat.stdout.contains(ChappieEmulator.defaultReply(for: "third try")), "stdout: \(chat.stdout)")
            }
        }
    }

    @Test("a reached usage limit still ends the chat, with status 4", .timeLimit(.minutes(1)))
    func chatEndsAtUsageLimit() async throws {
        try await CLIEmulator.with { emulator, environment in
            try await CLIEmulator.signIn(emulator, environment: environment)
            await emulator.enqueue(.usageLimitReached(resetsInSeconds: 600))
            let chat = try await CLIProcess.run(["chat"] + CLIEmulator.endpointArguments(emulator),
                                                stdin: "one\nnever sent\n", environment: environment)
            #expect(chat.status == 4, "stderr: \(chat.stderr)")
            #expect(!chat.stdout.contains("never sent"))
        }
    }

    // MARK: 4. chat --json slash commands

    @Test("chat --json answers every slash command with one JSON object per line", .timeLimit(.minutes(1)))
    func chatJSONSlashCommands() async throws {
        let input = "/compact\n/context\nhello\n/context\n/model\n/model gpt-5.4\n/clear\n/help\n/bogus\nagain\n/compact\n"
        let chat = try await CLIProcess.run(["chat", "--emulator", "--json"], stdin: input, environment: CLIProcess.isolatedEnvironment())
        #expect(chat.status == 0, "stderr: \(chat.stderr)")
        let events = try chat.jsonLines()
        #expect(events.allSatisfy { $0["event"]?.stringValue != nil }, "\(chat.stdout)")
        let names = events.compactMap { $0["event"]?.stringValue }.filter { $0 != "text_delta" }
        #expect(names == ["nothing_to_compact", "context", "completed", "context", "model", "model", "cleared", "help", "error",
                          "completed", "compacted"], "\(chat.stdout)")
        let contexts = events.filter { $0["event"] == "context" }
        #expect(contexts.first?["thread_id"] == .null && contexts.last?["message_count"] == .integer(2))
        #expect(events.filter { $0["event"] == "model" }.map { $0["model"] } == [.string("gpt-5.5"), .string("gpt-5.4")])
        #expect(events.first { $0["event"] == "error" }?["message"]?.stringValue?.contains("/bogus") == true)
        #expect(events.last?["messages_before"] == .integer(2))
    }

    // MARK: 5. logout --json

    @Test("logout --json says signed_out, then not_signed_in", .timeLimit(.minutes(1)))
    func logoutJSON() async throws {
        try await CLIEmulator.with { emulator, environment in
            try await CLIEmulator.signIn(emulator, environment: environment)
            let auth = ["--auth-url", emulator.baseURL.absoluteString]
            let first = try await CLIProcess.run(["logout", "--json"] + auth, environment: environment)
            let second = try await CLIProcess.run(["logout", "--json"] + auth, environment: environment)
            #expect(first.status == 0 && second.status == 0, "\(first.stderr) \(second.stderr)")
            #expect(try first.jsonLines() == [.object(["event": "signed_out"])])
            #expect(try second.jsonLines() == [.object(["event": "not_signed_in"])])
        }
    }

    // MARK: 6. emulator on a port in use

    @Test("chappie emulator on a port in use says so in words", .timeLimit(.minutes(1)))
    func emulatorPortInUse() async throws {
        try await CLIEmulator.with { emulator, environment in
            let plain = try await CLIProcess.run(["emulator", "--port", "\(emulator.port)"], environment: environment)
            #expect(plain.status == 1)
            #expect(plain.stderr == "chappie: port \(emulator.port) is already in use\n")
            let json = try await CLIProcess.run(["emulator", "--port", "\(emulator.port)", "--json"], environment: environment)
            #expect(try json.jsonLines().first?["message"] == .string("port \(emulator.port) is already in use"))
        }
    }

    // MARK: 7. status exits 3 when sign-in is needed

    @Test("status exits 0 signed in and 3 signed out, with or without --json", .timeLimit(.minutes(1)))
    func statusExitStatus() async throws {
        try await CLIEmulator.with { emulator, environment in
            let endpoints = CLIEmulator.endpointArguments(emulator)
            let before = try await CLIProcess.run(["status", "--json"] + endpoints, environment: environment)
            #expect(before.status == 3)
            #expect(try before.jsonLines().first?["state"] == "signedOut")
            try await CLIEmulator.signIn(emulator, environment: environment)
            let signedIn = try await CLIProcess.run(["status"] + endpoints, environment: environment)
            #expect(signedIn.status == 0, "stderr: \(signedIn.stderr)")
        }
    }

    // MARK: 8. A saved sign-in that cannot be used; no command

    @Test("ask and chat give status's reason when the saved sign-in cannot be used", .timeLimit(.minutes(1)),
          arguments: ["mode 0644", "garbage"])
    func unusableSavedSignIn(damage: String) async throws {
        try await CLIEmulator.with { emulator, environment in
            try await CLIEmulator.signIn(emulator, environment: environment)
            let home = URL(fileURLWithPath: try #require(environment["XDG_DATA_HOME"])).appending(path: "chappie/credentials")
            let files = try #require(FileManager.default.enumerator(at: home, includingPropertiesForKeys: nil)?.allObjects as? [URL])
            let file = try #require(files.first { $0.pathExtension == "json" })
            if damage == "garbage" {
                try Data("garbage".utf8).write(to: file)
                chmod(file.path, 0o600)
            } else {
                chmod(file.path, 0o644)
            }
            let endpoints = CLIEmulator.endpointArguments(emulator)

            let status = try await CLIProcess.run(["status"] + endpoints, environment: environment)
            let ask = try await CLIProcess.run(["ask", "hi"] + endpoints, environment: environment)
            let chat = try await CLIProcess.run(["chat"] + endpoints, stdin: "hi\n", environment: environment)

            let reason = try #require(status.stderr.split(separator: "\n").first.map { $0.dropFirst("chappie: ".count) }, "\(status.stderr)")
            #expect(reason.hasPrefix("The saved sign-in could not be used"))
            for result in [ask, chat] {
                #expect(result.status == 3)
                #expect(result.stderr == "chappie: Not signed in: \(reason)\n")
            }
        }
    }

    @Test("chappie with no command prints the overview to standard error and exits 2")
    func noCommand() async throws {
        let result = try await CLIProcess.run([], environment: CLIProcess.isolatedEnvironment())
        let overview = try await CLIProcess.run(["help"], environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("Commands:"))
        #expect(result.stderr == overview.stdout)
    }
}
