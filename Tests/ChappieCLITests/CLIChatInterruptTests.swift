import ChappieEmulator
import ChappieSDK
import ChappieSDKRuntime
import ChappieTestSupport
import Foundation
import Testing

/// Ctrl-C in `chappie chat` (issue 16 item 1): during a turn it cancels only that turn, at the
/// prompt it clears the line, and later prompts are sent as usual; Ctrl-D leaves with status 0.
/// The emulator stalls the first reply, so a turn is reliably in flight when Ctrl-C comes.
@Suite("chappie chat and Ctrl-C")
struct CLIChatInterruptTests {
    @Test("on a terminal: Ctrl-C cancels the turn in flight, clears a half-typed line, later prompts are sent, Ctrl-D exits 0",
          .enabled(if: CLIProcess.pseudoTerminalAvailable), .timeLimit(.minutes(1)))
    func terminal() async throws {
        try await CLIEmulator.with { emulator, environment in
            // given: a signed-in CLI and a first reply that never comes
            try await CLIEmulator.signIn(emulator, environment: environment)
            await emulator.enqueue(.stall)
            let chat = try PseudoTerminalSession(["chat"] + CLIEmulator.endpointArguments(emulator), environment: environment)
            defer { chat.terminate() }
            try #require(await chat.waitFor("you> "), "output: \(chat.shown)")

            // when: a prompt is sent, and Ctrl-C comes while its reply is in flight
            chat.type("never answered\r")
            _ = await emulator.nextRequest(path: CLIEmulator.responsesPath)
            chat.type("\u{03}")

            // then: the turn stops, the chat goes on with a new prompt
            try #require(await chat.waitFor("Interrupted."), "output: \(chat.shown)")
            try #require(await chat.waitFor("you> ", count: 2))

            // when: Ctrl-C at the prompt, after half a line
            chat.type("half typed")
            try #require(await chat.waitFor("half typed"))
            chat.type("\u{03}")

            // then: the line is cleared and a new prompt shows
            try #require(await chat.waitFor("you> ", count: 3), "output: \(chat.shown)")

            // when: a later prompt
            chat.type("answered later\r")

            // then: it is sent alone (nothing of the cleared line, nothing of the cancelled turn)
            try #require(await chat.waitFor("you said: “answered later”"), "output: \(chat.shown)")
            let body = try CLIEmulator.body(of: await emulator.nextRequest(path: CLIEmulator.responsesPath))
            #expect(CLIEmulator.inputTexts(body) == ["answered later"])
            #expect(await chat.waitFor("you> ", count: 4))

            // when: Ctrl-D
            chat.type("\u{04}")

            // then: exit 0, not "interrupted"; the cancelled and the completed turn are saved
            let status = await chat.wait()
            #expect(status == 0, "output: \(chat.shown)")
            #expect(!chat.shown.contains("chappie: interrupted"))
            let statuses = try await savedTurnStatuses(environment)
            #expect(statuses == [.cancelled, .completed])
        }
    }

    @Test("with piped input: SIGINT cancels the turn in flight, the next line is still sent, end of input exits 0",
          .timeLimit(.minutes(1)))
    func pipedInput() async throws {
        try await CLIEmulator.with { emulator, environment in
            // given
            try await CLIEmulator.signIn(emulator, environment: environment)
            await emulator.enqueue(.stall)
            let chat = try CLIProcess.start(["chat"] + CLIEmulator.endpointArguments(emulator), environment: environment, pipedInput: true)

            // when: Ctrl-C (SIGINT) while the first reply is in flight, then another line and end of input
            chat.write("never answered\n")
            _ = await emulator.nextRequest(path: CLIEmulator.responsesPath)
            chat.interrupt()
            chat.write("second line\n")
            chat.closeInput()

            // then
            let answered = try await chat.firstLine { $0.contains("you said: “second line”") }
            let result = try await chat.wait()
            try #require(answered != nil, "stderr: \(result.stderr)")
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("Interrupted."))
            #expect(!result.stderr.contains("chappie: interrupted"))
            let body = try CLIEmulator.body(of: await emulator.nextRequest(path: CLIEmulator.responsesPath))
            #expect(CLIEmulator.inputTexts(body) == ["second line"])
            #expect(try await savedTurnStatuses(environment) == [.cancelled, .completed])

            // and `threads show` puts the cancelled turn's note under the turn that was cancelled
            let summary = try #require(try await CLIThreadStore.store(for: environment).threads(includingArchived: true).first)
            let show = try await CLIProcess.run(["threads", "show", summary.id.uuidString], environment: environment)
            let lines = show.stdout.split(separator: "\n").map(String.init)
            let cancelled = try #require(lines.firstIndex { $0.contains("[cancelled turn") }, "stdout: \(show.stdout)")
            let second = try #require(lines.firstIndex { $0.contains("second line") }, "stdout: \(show.stdout)")
            #expect(lines.firstIndex { $0.contains("never answered") }.map { $0 < cancelled } == true)
            #expect(cancelled < second, "stdout: \(show.stdout)")
        }
    }

    @Test("SIGTERM still ends a chat waiting for input, with status 130", .timeLimit(.minutes(1)))
    func terminateAtPrompt() async throws {
        let chat = try CLIProcess.start(["chat", "--emulator"], environment: CLIProcess.isolatedEnvironment(), pipedInput: true)
        chat.write("one\n")
        #expect(try await chat.firstLine { $0.contains("you said: “one”") } != nil)
        chat.terminate()
        let result = try await chat.wait()
        #expect(result.status == 130, "stderr: \(result.stderr)")
    }

    /// The statuses of the turns of the one thread saved in `environment`'s store.
    private func savedTurnStatuses(_ environment: [String: String]) async throws -> [ChappieThreadTurn.Status] {
        let store = CLIThreadStore.store(for: environment)
        let summary = try #require(try await store.threads(includingArchived: true).first)
        return try await store.thread(id: summary.id).turns.map(\.status)
    }
}
