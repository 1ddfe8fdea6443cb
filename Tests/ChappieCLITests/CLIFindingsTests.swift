import ChappieEmulator
import ChappieSDK
import ChappieSDKRuntime
import ChappieTestSupport
import Foundation
import Testing

/// The findings of issue 16 (items 4–7) and its bad-input list, each as the user met it.
@Suite("chappie as a new user tried it")
struct CLIFindingsTests {
    // MARK: Item 4

    @Test("status reports the state the SDK acts on: a session the server no longer renews needs sign-in", .timeLimit(.minutes(1)))
    func statusAfterInvalidatedRefresh() async throws {
        try await CLIEmulator.with { emulator, environment in
            // given: signed in, then both tokens revoked on the server
            try await CLIEmulator.signIn(emulator, environment: environment)
            await emulator.revokeAllAccessTokens()
            await emulator.revokeAllRefreshTokens()
            let endpoints = CLIEmulator.endpointArguments(emulator)

            // when
            let status = try await CLIProcess.run(["status"] + endpoints, environment: environment)
            let json = try await CLIProcess.run(["status", "--json"] + endpoints, environment: environment)
            let ask = try await CLIProcess.run(["ask", "hi"] + endpoints, environment: environment)

            // then: status says what ask finds, and exits 3 (sign-in needed) as ask does
            #expect(status.status == 3)
            #expect(json.status == 3)
            #expect(status.stdout.contains("can no longer be renewed"), "\(status.stdout)")
            #expect(try json.jsonLines().first?["state"] == .string("reauthenticationRequired"))
            #expect(ask.status == 3)
        }
    }

    @Test("status with an unreachable server shows the stored state and says it was not checked", .timeLimit(.minutes(1)))
    func statusWithKilledServer() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        let emulator = try await ChappieEmulator.start(CLIEmulator.configuration)
        try await CLIEmulator.signIn(emulator, environment: environment)
        let endpoints = CLIEmulator.endpointArguments(emulator)
        await emulator.shutdown()
        let status = try await CLIProcess.run(["status"] + endpoints, environment: environment)
        #expect(status.status == 0, "stderr: \(status.stderr)")
        #expect(status.stdout.contains("Signed in as user@example.com"))
        #expect(status.stdout.contains("Not checked with the server"))
    }

    // MARK: Item 5

    @Test("threads show after /compact shows every turn and the compaction; /compact says what happened", .timeLimit(.minutes(1)))
    func showAfterCompact() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        let chat = try await CLIProcess.run(["chat", "--emulator"], stdin: "first question\nsecond question\n/compact\nthird question\n",
                                            environment: environment)
        #expect(chat.status == 0, "stderr: \(chat.stderr)")
        #expect(chat.stdout.contains("Compacted on the server: 4 messages became an encrypted summary; 2 messages kept."))
        #expect(!chat.stdout.contains("summary of 0 characters"))

        let show = try await CLIProcess.run(["threads", "show", try #require(try await threadID(environment))], environment: environment)
        #expect(show.status == 0, "stderr: \(show.stderr)")
        let lines = show.stdout.split(separator: "\n").map(String.init)
        let conversation = lines.filter { $0.hasPrefix("you: ") || $0.hasPrefix("assistant: ") || $0.hasPrefix("[") }
        #expect(conversation.count == 7, "\(show.stdout)")
        #expect(conversation[0] == "you: first question")
        #expect(conversation[1] == "assistant: " + ChappieEmulator.defaultReply(for: "first question"))
        #expect(conversation[3] == "assistant: " + ChappieEmulator.defaultReply(for: "second question"))
        #expect(conversation[4].contains("4 messages compacted on the server"))
        #expect(conversation[6] == "assistant: " + ChappieEmulator.defaultReply(for: "third question"))
        #expect(lines.contains { $0.hasPrefix("3 turns · ") })
    }

    // MARK: Item 6

    @Test("chappie emulator says codes are approved automatically and prints the exact --auth-url and --backend-url", .timeLimit(.minutes(1)))
    func emulatorBanner() async throws {
        let running = try CLIProcess.start(["emulator", "--port", "0", "--approve-after", "3"], environment: CLIProcess.isolatedEnvironment())
        let banner = try await running.lines(through: { $0.hasPrefix("Press Ctrl-C") })
        let listening = try #require(banner.first { $0.hasPrefix("Chappie emulator listening on ") })
        let url = String(listening.dropFirst("Chappie emulator listening on ".count))
        #expect(banner.contains("  chappie login --auth-url \(url)"))
        #expect(banner.contains("  chappie ask \"hello\" --auth-url \(url) --backend-url \(url)/backend-api"))
        #expect(banner.contains { $0.hasPrefix("Device codes are approved automatically after 3 polls") })
        #expect(banner.contains { $0.contains("429 usage_limit_reached") })
        running.interrupt()
        #expect(try await running.wait().status == 0)
    }

    // MARK: Item 7

    @Test("chappie --help and -h print the command list")
    func helpFlags() async throws {
        let overview = try await CLIProcess.run(["help"])
        for flag in ["--help", "-h"] {
            let result = try await CLIProcess.run([flag])
            #expect(result.status == 0)
            #expect(result.stdout == overview.stdout, "\(flag)")
            #expect(result.stdout.contains("Commands:"))
        }
        #expect(try await CLIProcess.run(["help", "--help"]).stdout.hasPrefix("Usage: chappie help"))
    }

    @Test("the demo keeps both steps in one thread, in memory: it leaves no file behind, and names commands that run", .timeLimit(.minutes(1)))
    func demoThread() async throws {
        // given: the binary not on PATH (as after `swift run chappie demo`)
        let environment = CLIProcess.isolatedEnvironment()
        let demo = try await CLIProcess.run(["demo"], environment: environment)
        #expect(demo.status == 0, "stderr: \(demo.stderr)")
        #expect(demo.stdout.contains(", 2 turns, in memory: the demo writes nothing to disk."), "\(demo.stdout)")
        #expect(demo.stdout.contains("`swift run chappie threads list` shows them."))
        let data = try #require(environment["XDG_DATA_HOME"])
        #expect(!FileManager.default.fileExists(atPath: data), "the demo created \(data)")
        let listed = try await CLIProcess.run(["threads", "list", "--json"], environment: environment)
        #expect(listed.status == 0 && listed.stdout.isEmpty, "\(listed.stdout)")

        // and with the binary's folder on PATH the hint is the plain command
        var onPath = CLIProcess.isolatedEnvironment()
        onPath["PATH"] = CLIProcess.binary.deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")
        let again = try await CLIProcess.run(["demo"], environment: onPath)
        #expect(again.stdout.contains("`chappie threads list` shows them."))
    }

    @Test("with --json, errors are JSON and login prints its outcome", .timeLimit(.minutes(1)))
    func jsonErrorsAndLogin() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        let signedOut = try await CLIProcess.run(["ask", "hi", "--json", "--auth-url", "http://127.0.0.1:9", "--backend-url", "http://127.0.0.1:9/backend-api"],
                                                 environment: environment)
        #expect(signedOut.status == 3)
        let error = try #require(try signedOut.jsonLines().last)
        #expect(error["event"] == "error" && error["exit_status"] == .integer(3))
        #expect(error["message"]?.stringValue?.hasPrefix("Not signed in") == true)
        #expect(error["hint"]?.stringValue?.contains("chappie login") == true)
        #expect(signedOut.stderr.isEmpty)
        let usage = try await CLIProcess.run(["ask", "--bogus", "--json"], environment: environment)
        #expect(usage.status == 2)
        let usageHint = try #require(try usage.jsonLines().first?["hint"]?.stringValue)
        #expect(try usage.jsonLines() == [["event": "error", "message": "unknown option --bogus", "hint": .string(usageHint), "exit_status": 2]])
        #expect(usageHint.hasPrefix("Usage: chappie ask"))

        try await CLIEmulator.with { emulator, environment in
            let login = try await CLIProcess.run(["login", "--json", "--auth-url", emulator.baseURL.absoluteString], environment: environment)
            #expect(login.status == 0, "stderr: \(login.stderr)")
            let events = try login.jsonLines().compactMap { $0["event"]?.stringValue }
            #expect(events == ["device_code", "signed_in"])
            #expect(try login.jsonLines().last?["email"] == "user@example.com")
        }
    }

    @Test("a model the catalog does not have is sent with a warning that names the closest slugs", .timeLimit(.minutes(1)))
    func unknownModelWarns() async throws {
        let ask = try await CLIProcess.run(["ask", "--emulator", "--model", "gpt-5.55", "hi"], environment: CLIProcess.isolatedEnvironment())
        #expect(ask.status == 0, "stderr: \(ask.stderr)")
        #expect(ask.stderr.contains("chappie: warning: the model catalog has no 'gpt-5.55'; closest: gpt-5.5"))
        let known = try await CLIProcess.run(["ask", "--emulator", "--model", "gpt-5.5", "hi"], environment: CLIProcess.isolatedEnvironment())
        #expect(!known.stderr.contains("warning"))
        let chat = try await CLIProcess.run(["chat", "--emulator"], stdin: "/model gpt-4o-minii\n", environment: CLIProcess.isolatedEnvironment())
        #expect(chat.stderr.contains("the model catalog has no 'gpt-4o-minii'"))
    }

    @Test("threads show --json uses the keys and lower-case ids of threads list")
    func showJSON() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        try await CLIThreadStore.seed("ABCD0000-0000-4000-8000-000000000001", in: environment)
        let listed = try #require(try await CLIProcess.run(["threads", "list", "--json"], environment: environment).jsonLines().first)
        let shown = try await CLIProcess.run(["threads", "show", "abcd", "--json"], environment: environment)
        let thread = try #require(try shown.jsonLines().first)
        #expect(!shown.stdout.contains("\"_0\""))
        #expect(!shown.stdout.contains("ABCD0000"))
        guard case .object(let listFields) = listed, case .object(let showFields) = thread else { Issue.record("not objects"); return }
        for (key, value) in listFields { #expect(showFields[key] == value, "\(key)") }
        #expect(thread["messages"]?.arrayValue?.first == ["role": "user", "text": "a seeded question"])
    }

    @Test("/context names the saved thread; one turn is \"1 turn\"", .timeLimit(.minutes(1)))
    func contextAndTurnCount() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        let chat = try await CLIProcess.run(["chat", "--emulator"], stdin: "one\n/context\n", environment: environment)
        let id = try #require(try await threadID(environment))
        #expect(chat.stdout.contains("Thread \(id), model gpt-5.5, 2 messages"))
        let show = try await CLIProcess.run(["threads", "show", id], environment: environment)
        #expect(show.stdout.split(separator: "\n").contains { $0.hasPrefix("1 turn") && !$0.hasPrefix("1 turns") })
    }

    // MARK: Bad input

    @Test("piped binary is refused with a clear message, never sent", arguments: [Data([0xFF, 0xFE, 0x00, 0x41]), Data("text\u{0}with nul".utf8)])
    func pipedBinary(input: Data) async throws {
        let environment = ProcessInfo.processInfo.environment.merging(CLIProcess.isolatedEnvironment()) { $1 }
        let result = try await CLIProcess.execute(CLIProcess.binary, ["ask", "--emulator"], stdinData: input, environment: environment)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("chappie: standard input is not UTF-8 text (\(input.count) bytes)"))
        let chat = try await CLIProcess.execute(CLIProcess.binary, ["chat", "--emulator"], stdinData: input + Data("\nhello\n".utf8),
                                                environment: environment)
        #expect(chat.status == 0)
        #expect(chat.stderr.contains("skipped a line that is not UTF-8 text"))
        #expect(chat.stdout.contains("you said: “hello”"))
    }

    @Test("a 1 MB prompt goes through and is saved", .timeLimit(.minutes(1)))
    func megabytePrompt() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        try await CLIThreadStore.seed("abcd0000-0000-4000-8000-000000000001", in: environment)
        let prompt = String(repeating: "lorem ipsum ", count: 90_000)
        let result = try await CLIProcess.run(["threads", "resume", "abcd", "--emulator"], stdin: prompt, environment: environment)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.hasPrefix("Hello from the Chappie emulator"))
        let thread = try await CLIThreadStore.store(for: environment).thread(id: try #require(UUID(uuidString: "abcd0000-0000-4000-8000-000000000001")))
        #expect(thread.context.messages.map(\.text).contains(prompt.trimmingCharacters(in: .whitespaces)))
    }

    @Test("a killed emulator: the turn fails with one clear line, exit 5, and the failed turn is saved", .timeLimit(.minutes(1)))
    func killedEmulator() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        let id = try await CLIThreadStore.seed("abcd0000-0000-4000-8000-000000000001", in: environment)
        let emulator = try await ChappieEmulator.start(CLIEmulator.configuration)
        try await CLIEmulator.signIn(emulator, environment: environment)
        let endpoints = CLIEmulator.endpointArguments(emulator)
        await emulator.shutdown()
        let result = try await CLIProcess.run(["threads", "resume", "abcd", "still there?"] + endpoints, environment: environment)
        #expect(result.status == 5)
        #expect(result.stderr.hasPrefix("chappie: "))
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 2, "the error and its hint: \(result.stderr)")
        #expect(lines.last == "Check the network connection and try again.")
        let thread = try await CLIThreadStore.store(for: environment).thread(id: id)
        #expect(thread.turns.map(\.status) == [.failed])
        #expect(thread.context.messages.count == 2, "the transcript is unchanged")
    }

    @Test("a full disk: the reply is shown, the turn is reported unsaved, the thread files are intact", .timeLimit(.minutes(1)))
    func fullDisk() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        let id = try await CLIThreadStore.seed("abcd0000-0000-4000-8000-000000000001", in: environment)
        let folder = URL(filePath: try #require(environment["XDG_DATA_HOME"])).appending(path: "chappie/threads")
        let before = try Data(contentsOf: folder.appending(path: id.uuidString.lowercased() + ".json"))
        var full = environment
        full["CHAPPIE_TEST_THREAD_WRITE_FAULT"] = "ENOSPC"
        let result = try await CLIProcess.run(["threads", "resume", "abcd", "--emulator", "anyone?"], environment: full)
        #expect(result.status == 1)
        #expect(result.stdout.contains("you said: “anyone?”"))
        #expect(result.stderr.contains("chappie: the reply was not saved: Thread storage failed: "))
        #expect(result.stderr.contains(String(cString: strerror(ENOSPC))))
        #expect(try Data(contentsOf: folder.appending(path: id.uuidString.lowercased() + ".json")) == before)
        #expect(!FileManager.default.fileExists(atPath: folder.appending(path: id.uuidString.lowercased() + ".journal").path))
        #expect(try await CLIThreadStore.store(for: environment).thread(id: id).turns.isEmpty)
    }

    @Test("a thread file edited by hand: a clear note, the file kept aside, the other threads fine")
    func handEditedThread() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        let broken = try await CLIThreadStore.seed("abcd0000-0000-4000-8000-000000000001", title: "broken", in: environment)
        try await CLIThreadStore.seed("ef010000-0000-4000-8000-000000000002", title: "fine", in: environment)
        let folder = URL(filePath: try #require(environment["XDG_DATA_HOME"])).appending(path: "chappie/threads")
        let file = folder.appending(path: broken.uuidString.lowercased() + ".json")
        let edited = Data("{\"formatVersion\":2,\"id\":\"oops — edited by hand".utf8)
        try edited.write(to: file)
        let list = try await CLIProcess.run(["threads", "list"], environment: environment)
        #expect(list.status == 0)
        #expect(list.stdout.contains("fine") && !list.stdout.contains("broken"))
        #expect(list.stderr.contains("note: \(broken.uuidString.lowercased()).json: not a Chappie thread"))
        let aside = try FileManager.default.contentsOfDirectory(atPath: folder.appending(path: "damaged").path)
        #expect(aside.count == 1)
        #expect(try Data(contentsOf: folder.appending(path: "damaged/" + (aside.first ?? ""))) == edited)
    }

    // MARK: Helpers

    /// The id of the one thread saved in `environment`'s store.
    private func threadID(_ environment: [String: String]) async throws -> String? {
        try await CLIThreadStore.store(for: environment).threads(includingArchived: true).first?.id.uuidString.lowercased()
    }
}
