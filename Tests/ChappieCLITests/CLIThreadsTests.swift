import ChappieEmulator
import ChappieSDK
import ChappieSDKRuntime
import ChappieTestSupport
import Foundation
import Testing

@Suite("chappie threads")
struct CLIThreadsTests {
    @Test("threads list, show, archive, unarchive and delete the threads chat saved", .timeLimit(.minutes(1)))
    func lifecycle() async throws {
        // given: two conversations saved by chat
        let environment = CLIProcess.isolatedEnvironment()
        let chat = try await CLIProcess.run(["chat", "--emulator"], stdin: "first thread\n/clear\nsecond thread\n", environment: environment)
        try #require(chat.status == 0, "stderr: \(chat.stderr)")
        let listed = try await run(["threads", "list", "--json"], environment).jsonLines()
        try #require(listed.map { $0["title"]?.stringValue } == ["second thread", "first thread"])
        let first = try #require(listed[1]["id"]?.stringValue)
        let second = try #require(listed[0]["id"]?.stringValue)
        #expect(listed[1]["message_count"] == .integer(2))
        #expect(listed[1]["archived"] == .bool(false))
        #expect(listed[1]["model"] == .string("gpt-5.5"))

        // when / then: list as text, newest first
        let text = try await run(["threads", "list"], environment)
        let rows = text.stdout.split(separator: "\n").map(String.init)
        #expect(rows.first?.hasPrefix("ID ") == true && rows.first?.hasSuffix("TURNS  TITLE") == true)
        #expect(rows.dropFirst().map { String($0.prefix(36)) } == [second, first])
        #expect(rows.last?.hasSuffix("    1  first thread") == true)

        // show by full ID, by prefix and as JSON
        let shown = try await run(["threads", "show", first], environment)
        #expect(shown.stdout.hasPrefix("first thread\nid \(first) · model gpt-5.5"))
        #expect(shown.stdout.contains("\nyou: first thread\nassistant: Hello from the Chappie emulator — you said: “first thread”\n"))
        #expect(!shown.stdout.contains("second thread"))
        #expect(try await run(["threads", "show", String(first.prefix(6))], environment).stdout == shown.stdout)
        #expect(try await run(["threads", "show", first.uppercased()], environment).stdout == shown.stdout)
        let json = try await run(["threads", "show", first, "--json"], environment).jsonLines()
        #expect(json.count == 1)
        #expect(json.first?["id"]?.stringValue?.lowercased() == first)
        #expect(json.first?["title"] == .string("first thread"))

        // archive hides it from list; list --all shows it marked
        let archive = try await run(["threads", "archive", String(first.prefix(8))], environment)
        #expect(archive.stdout == "Archived thread \(first).\n")
        #expect(try await ids(["threads", "list", "--json"], environment) == [second])
        #expect(try await ids(["threads", "list", "--all", "--json"], environment) == [first, second], "archiving counts as an update")
        let all = try await run(["threads", "list", "--all"], environment)
        #expect(all.stdout.contains("first thread (archived)"))
        #expect(try await run(["threads", "show", first], environment).stdout.hasPrefix("first thread (archived)\n"))

        // unarchive brings it back
        let unarchive = try await run(["threads", "unarchive", first, "--json"], environment).jsonLines()
        #expect(unarchive == [.object(["event": "unarchived", "id": .string(first)])])
        #expect(try await ids(["threads", "list", "--json"], environment) == [first, second])

        // delete removes it for good
        let delete = try await run(["threads", "delete", first], environment)
        #expect(delete.stdout == "Deleted thread \(first).\n")
        #expect(try await ids(["threads", "list", "--all", "--json"], environment) == [second])
        let gone = try await CLIProcess.run(["threads", "show", first], environment: environment)
        #expect(gone.status == 1, "a thread that is not there is a failure, not a usage error")
        #expect(gone.stderr.hasPrefix("chappie: no thread ID starts with '\(first)'"))
    }

    @Test("an empty store lists nothing and says how to see archived threads")
    func emptyList() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        let text = try await run(["threads", "list"], environment)
        #expect(text.stdout == "No saved threads (archived ones are hidden; use --all).\n")
        #expect(try await run(["threads", "list", "--all"], environment).stdout == "No saved threads.\n")
        #expect(try await run(["threads", "list", "--json"], environment).stdout.isEmpty)
    }

    @Test("a thread ID resolves by full ID (any case) or a unique prefix of 4+ characters; a bad ID is exit 2, an unknown one exit 1", arguments: [
        (id: "abcd", status: Int32(2), message: "'abcd' matches 2 threads; give more of the ID"),
        (id: "abcd0000-0000-4000-8000-00000000000", status: 2, message: "'abcd0000-0000-4000-8000-00000000000' matches 2 threads"),
        (id: "abc", status: 2, message: "'abc' is not a thread ID: give the ID or at least its first 4 characters"),
        (id: "ab", status: 2, message: "'ab' is not a thread ID: give the ID or at least its first 4 characters"),
        (id: "9999", status: 1, message: "no thread ID starts with '9999'"),
        (id: "99999999-0000-4000-8000-000000000000", status: 1, message: "no thread ID starts with '99999999-0000-4000-8000-000000000000'"),
        (id: "ef01", status: 0, message: ""),
        (id: "ABCD0000-0000-4000-8000-000000000002", status: 0, message: ""),
        (id: "abcd0000-0000-4000-8000-000000000001", status: 0, message: ""),
    ])
    func idResolution(id: String, status: Int32, message: String) async throws {
        // given: two threads whose IDs share a long prefix, and a third
        let environment = CLIProcess.isolatedEnvironment()
        for seeded in ["abcd0000-0000-4000-8000-000000000001", "abcd0000-0000-4000-8000-000000000002", "ef010000-0000-4000-8000-000000000003"] {
            try await CLIThreadStore.seed(seeded, title: "thread \(seeded.suffix(1))", in: environment)
        }

        // when
        let result = try await CLIProcess.run(["threads", "show", id], environment: environment)

        // then
        #expect(result.status == status, "stderr: \(result.stderr)")
        if status == 0 {
            #expect(result.stdout.contains("id \(id.lowercased().prefix(4))"))
        } else {
            #expect(result.stderr.hasPrefix("chappie: \(message)"))
            #expect(result.stdout.isEmpty)
        }
    }

    @Test("archive, unarchive and delete of an unknown ID exit 1 and change nothing", arguments: ["archive", "unarchive", "delete"])
    func unknownIDChangesNothing(subcommand: String) async throws {
        let environment = CLIProcess.isolatedEnvironment()
        let kept = try await CLIThreadStore.seed("abcd0000-0000-4000-8000-000000000001", in: environment)

        let result = try await CLIProcess.run(["threads", subcommand, "99999999-0000-4000-8000-000000000000"], environment: environment)

        #expect(result.status == 1)
        #expect(result.stdout.isEmpty, "must not claim success: \(result.stdout)")
        let all = try await CLIThreadStore.store(for: environment).threads(includingArchived: true)
        #expect(all.map(\.id) == [kept])
        #expect(all.first?.archived == false)
    }

    @Test("threads resume sends the saved messages with the new prompt, streams the reply and saves the turn", .timeLimit(.minutes(1)))
    func resume() async throws {
        try await CLIEmulator.with { emulator, environment in
            // given: a saved thread and a signed-in CLI
            let id = try await CLIThreadStore.seed("abcd0000-0000-4000-8000-000000000001", title: "capitals",
                                                   messages: ["What is the capital of France?", "Paris."], in: environment)
            try await CLIEmulator.signIn(emulator, environment: environment)
            let endpoints = CLIEmulator.endpointArguments(emulator)

            // when: resumed by prefix with the prompt as an argument
            let resumed = try await CLIProcess.run(["threads", "resume", "abcd", "And of Italy?"] + endpoints, environment: environment)

            // then
            #expect(resumed.status == 0, "stderr: \(resumed.stderr)")
            #expect(resumed.stdout == "Hello from the Chappie emulator — you said: “And of Italy?”\n")
            #expect(resumed.stderr == "Saved to thread \(id.uuidString.lowercased()).\n")
            let first = try CLIEmulator.body(of: await emulator.nextRequest(path: CLIEmulator.responsesPath))
            #expect(CLIEmulator.inputTexts(first) == ["What is the capital of France?", "Paris.", "And of Italy?"])
            #expect(first["model"] == .string("gpt-5.5"), "the thread's model")
            #expect(first["reasoning"] == nil)

            // when: resumed with the prompt on standard input, another model and --fast
            let piped = try await CLIProcess.run(["threads", "resume", id.uuidString, "--model", "gpt-5.4", "--fast", "--json"] + endpoints,
                                                 stdin: "And of Spain?\n", environment: environment)

            // then
            #expect(piped.status == 0, "stderr: \(piped.stderr)")
            #expect(try piped.jsonLines().last?["thread_id"] == .string(id.uuidString.lowercased()))
            let second = try CLIEmulator.body(of: await emulator.nextRequest(path: CLIEmulator.responsesPath))
            #expect(CLIEmulator.inputTexts(second).first == "What is the capital of France?")
            #expect(CLIEmulator.inputTexts(second).last == "And of Spain?")
            #expect(CLIEmulator.inputTexts(second).count == 5)
            #expect(second["model"] == .string("gpt-5.4"))
            #expect(second["reasoning"]?["effort"] == .string("low"))

            let saved = try await run(["threads", "list", "--json"], environment).jsonLines()
            #expect(saved.count == 1)
            #expect(saved.first?["message_count"] == .integer(6))
            #expect(saved.first?["model"] == .string("gpt-5.4"))
            let shown = try await run(["threads", "show", "abcd"], environment)
            #expect(shown.stdout.hasSuffix("you: And of Spain?\nassistant: Hello from the Chappie emulator — you said: “And of Spain?”\n"))
        }
    }

    @Test("threads resume with --emulator signs in on a throwaway emulator and continues the thread")
    func resumeOnEmulator() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        let id = try await CLIThreadStore.seed("abcd0000-0000-4000-8000-000000000001", in: environment)
        let result = try await CLIProcess.run(["threads", "resume", "abcd", "--emulator", "once more"], environment: environment)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("you said: “once more”"))
        let thread = try await CLIThreadStore.store(for: environment).thread(id: id)
        #expect(thread.messages.map(\.text) == ["a seeded question", "a seeded answer", "once more", "Hello from the Chappie emulator — you said: “once more”"])
    }

    @Test("threads resume without a credential exits 3; without a prompt it exits 2")
    func resumeFailures() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        try await CLIThreadStore.seed("abcd0000-0000-4000-8000-000000000001", in: environment)
        let unreachable = ["--auth-url", "http://127.0.0.1:9", "--backend-url", "http://127.0.0.1:9/backend-api"]

        let signedOut = try await CLIProcess.run(["threads", "resume", "abcd", "hello"] + unreachable, environment: environment)
        #expect(signedOut.status == 3)
        #expect(signedOut.stderr.hasPrefix("chappie: Not signed in"))

        let noPrompt = try await CLIProcess.run(["threads", "resume", "abcd"] + unreachable, stdin: "  \n", environment: environment)
        #expect(noPrompt.status == 2)
        #expect(noPrompt.stderr.hasPrefix("chappie: threads resume needs a prompt"))
    }

    // MARK: Helpers

    /// Runs `chappie arguments…` and requires exit 0.
    private func run(_ arguments: [String], _ environment: [String: String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> CLIResult {
        let result = try await CLIProcess.run(arguments, environment: environment)
        try #require(result.status == 0, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    /// The thread IDs a `--json` listing prints, in order.
    private func ids(_ arguments: [String], _ environment: [String: String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        try await run(arguments, environment, sourceLocation: sourceLocation).jsonLines().compactMap { $0["id"]?.stringValue }
    }
}
