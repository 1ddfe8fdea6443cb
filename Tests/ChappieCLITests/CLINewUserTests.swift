import ChappieEmulator
import ChappieSDK
import ChappieSDKRuntime
import ChappieTestSupport
import Foundation
import Testing

/// What a new user hit trying the CLI (a real terminal where it matters): `$HOME`, a read-only
/// data folder, hints that keep the options in use, line editing, continuing a thread.
@Suite("chappie as a new user tries it")
struct CLINewUserTests {
    @Test("with XDG_DATA_HOME unset, $HOME is where login saves the sign-in, and logout leaves no empty folder", .timeLimit(.minutes(1)))
    func homeIsHonoured() async throws {
        try await CLIEmulator.with { emulator, isolated in
            var environment = isolated
            environment["XDG_DATA_HOME"] = ""
            let home = try #require(environment["HOME"])
            defer { try? FileManager.default.removeItem(atPath: home) }
            try await CLIEmulator.signIn(emulator, environment: environment)
            let credentials = URL(fileURLWithPath: home).appending(path: ".local/share/chappie/credentials")
            let saved = FileManager.default.enumerator(atPath: credentials.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".json") }
            #expect(saved?.count == 1, "nothing saved under \(credentials.path)")

            // login again says it replaces the sign-in
            let again = try await CLIProcess.run(["login", "--auth-url", emulator.baseURL.absoluteString], environment: environment)
            #expect(again.status == 0)
            #expect(again.stderr.contains("Already signed in"), "\(again.stderr)")

            let logout = try await CLIProcess.run(["logout", "--auth-url", emulator.baseURL.absoluteString], environment: environment)
            #expect(logout.status == 0 && logout.stdout == "Signed out.\n", "\(logout.stderr)")
            let chappie = URL(fileURLWithPath: home).appending(path: ".local/share/chappie").path
            #expect(!FileManager.default.fileExists(atPath: chappie), "left behind: \(chappie)")
        }
    }

    @Test("login into a data folder that cannot be written says so before any code is shown", .timeLimit(.minutes(1)))
    func unwritableDataFolder() async throws {
        var environment = CLIProcess.isolatedEnvironment()
        let blocker = FileManager.default.temporaryDirectory.appending(path: "chappie-blocker-\(UUID().uuidString)")
        try Data("a file where a folder should be".utf8).write(to: blocker)
        defer { try? FileManager.default.removeItem(at: blocker) }
        environment["XDG_DATA_HOME"] = blocker.path
        let login = try await CLIProcess.run(["login", "--auth-url", "http://127.0.0.1:9"], environment: environment)
        #expect(login.status == 1)
        #expect(login.stderr.hasPrefix("chappie: cannot save the sign-in: the folder \(blocker.path)/chappie/credentials cannot be written"),
                "\(login.stderr)")
        #expect(!login.stdout.contains("To sign in"), "the flow started: \(login.stdout)")
    }

    @Test("hints name the options in use: status --account work says to run login --account work")
    func hintsKeepOptions() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        let status = try await CLIProcess.run(["status", "--account", "work", "--auth-url", "http://127.0.0.1:9"], environment: environment)
        #expect(status.status == 3)
        #expect(status.stdout.contains("Run `chappie login --account work --auth-url http://127.0.0.1:9`."), "\(status.stdout)")
        let ask = try await CLIProcess.run(["ask", "hi", "--account", "work", "--auth-url", "http://127.0.0.1:9"], environment: environment)
        #expect(ask.status == 3)
        #expect(ask.stderr.contains("`chappie login --account work --auth-url http://127.0.0.1:9`"), "\(ask.stderr)")
    }

    @Test("commands that take no arguments refuse one; help ask names the options that pick the server and transport")
    func argumentsAndHelp() async throws {
        for command in ["models", "usage", "status", "logout", "login"] {
            let result = try await CLIProcess.run([command, "extra-arg"])
            #expect(result.status == 2, "\(command)")
            #expect(result.stderr.hasPrefix("chappie: `chappie \(command)` takes no arguments, not 'extra-arg'"), "\(result.stderr)")
        }
        let help = try await CLIProcess.run(["help", "ask"])
        for option in ["--auth-url", "--emulator", "--transport", "--account"] {
            #expect(help.stdout.contains(option), "help ask lacks \(option)")
        }
    }

    @Test("threads show --json has each turn's partial flag; a damaged thread's note names where it was moved", .timeLimit(.minutes(1)))
    func showJSONAndDamage() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        let chat = try await CLIProcess.run(["chat", "--emulator"], stdin: "hello\n", environment: environment)
        try #require(chat.status == 0, "\(chat.stderr)")
        let listed = try await CLIProcess.run(["threads", "list", "--json"], environment: environment).jsonLines()
        let id = try #require(listed.first?["id"]?.stringValue)
        let shown = try await CLIProcess.run(["threads", "show", id, "--json"], environment: environment).jsonLines()
        #expect(shown.first?["turns"]?.arrayValue?.first?["partial"] == .bool(false))

        let file = CLIThreadStore.store(for: environment).directory.appending(path: "\(id).json")
        try Data("damaged".utf8).write(to: file)
        let damaged = try await CLIProcess.run(["threads", "show", id], environment: environment)
        #expect(damaged.status != 0)
        let folder = CLIThreadStore.store(for: environment).directory.appending(path: "damaged").path
        #expect(damaged.stderr.contains("moved to \(folder)/\(id)-"), "\(damaged.stderr)")
    }

    @Test("chat --thread ID continues a saved thread, and the exit hint names that command", .timeLimit(.minutes(1)))
    func chatContinuesThread() async throws {
        try await CLIEmulator.with { emulator, environment in
            try await CLIEmulator.signIn(emulator, environment: environment)
            let seeded = try await CLIThreadStore.seed("abcd0000-0000-4000-8000-000000000001", in: environment)
            let chat = try await CLIProcess.run(["chat", "--thread", "abcd"] + CLIEmulator.endpointArguments(emulator),
                                                stdin: "and now?\n", environment: environment)
            #expect(chat.status == 0, "\(chat.stderr)")
            let body = try CLIEmulator.body(of: await emulator.nextRequest(path: CLIEmulator.responsesPath))
            #expect(CLIEmulator.inputTexts(body) == ["a seeded question", "a seeded answer", "and now?"])
            let thread = try await CLIThreadStore.store(for: environment).thread(id: seeded)
            #expect(thread.turns.count == 1)
        }
    }

    @Test("on a terminal, chat edits the line: arrows move, Up recalls, a line of escapes alone is not sent; the exit hint works",
          .enabled(if: CLIProcess.pseudoTerminalAvailable), .timeLimit(.minutes(1)))
    func lineEditing() async throws {
        try await CLIEmulator.with { emulator, environment in
            try await CLIEmulator.signIn(emulator, environment: environment)
            let chat = try PseudoTerminalSession(["chat"] + CLIEmulator.endpointArguments(emulator), environment: environment)
            defer { chat.terminate() }
            try #require(await chat.waitFor("you> "), "output: \(chat.shown)")

            // "hllo", three times Left, "e", Enter: "hello"
            chat.type("hllo\u{1B}[D\u{1B}[D\u{1B}[De\r")
            try #require(await chat.waitFor("you said: “hello”"), "output: \(chat.shown)")
            let first = try CLIEmulator.body(of: await emulator.nextRequest(path: CLIEmulator.responsesPath))
            #expect(CLIEmulator.inputTexts(first).last == "hello")

            // an arrow alone, then Up (the last line again) and Backspace, Enter: "hell"
            try #require(await chat.waitFor("you> ", count: 2))
            chat.type("\u{1B}[C\r")
            chat.type("\u{1B}[A\u{7F}\r")
            try #require(await chat.waitFor("you said: “hell”"), "output: \(chat.shown)")
            let second = try CLIEmulator.body(of: await emulator.nextRequest(path: CLIEmulator.responsesPath))
            #expect(CLIEmulator.inputTexts(second).suffix(3) == ["hello", "Hello from the Chappie emulator — you said: “hello”", "hell"].suffix(3)
                    || CLIEmulator.inputTexts(second).last == "hell")
            #expect(!chat.shown.contains("^[["), "escape sequences were echoed: \(chat.shown)")

            chat.type("\u{04}")
            #expect(await chat.wait() == 0, "output: \(chat.shown)")
            #expect(chat.shown.contains("chat --thread "), "output: \(chat.shown)")
            let saved = try await CLIThreadStore.store(for: environment).threads(includingArchived: false)
            let thread = try await CLIThreadStore.store(for: environment).thread(id: try #require(saved.first?.id))
            #expect(thread.turns.map { $0.input.map(\.text).joined() } == ["hello", "hell"], "output: \(chat.shown.debugDescription)")
        }
    }
}
