import ChappieEmulator
import ChappieSDK
import ChappieTestSupport
import Foundation
import Testing

/// What the CLI prints of untrusted text (issue 16 item 3, issue 18 item 10): model text, tool
/// output and strings from the sign-in server reach the terminal sanitized; `--raw` opts out for
/// model text; `--json` carries everything, escaped by JSON.
@Suite("chappie prints nothing that could drive the terminal")
struct CLIOutputSafetyTests {
    /// A reply that would retitle the terminal, clear it, and reverse the text after it.
    static let hostileReply = "safe \u{1B}]0;pwned\u{07}text \u{1B}[2J\u{1B}[31mred\u{1B}[0m \u{202E}desrever\u{202C} end\r"

    /// Control characters and bidi overrides that must never reach a terminal.
    static func hasControls(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            scalar != "\n" && scalar != "\t" && (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{202E}")
        }
    }

    @Test("a reply with escape sequences split across deltas prints as plain text; --raw prints it as it came; --json escapes it",
          .timeLimit(.minutes(1)))
    func modelText() async throws {
        try await ChappieEmulator.with(.init(pollingIntervalSeconds: 1, autoApproveAfterPolls: 1, deltaCharacters: 3)) { emulator in
            let environment = CLIProcess.isolatedEnvironment()
            try await CLIEmulator.signIn(emulator, environment: environment)
            let endpoints = CLIEmulator.endpointArguments(emulator)

            // when
            await emulator.enqueue(.text(Self.hostileReply))
            let plain = try await CLIProcess.run(["ask", "hi"] + endpoints, environment: environment)
            await emulator.enqueue(.text(Self.hostileReply))
            let raw = try await CLIProcess.run(["ask", "hi", "--raw"] + endpoints, environment: environment)
            await emulator.enqueue(.text(Self.hostileReply))
            let json = try await CLIProcess.run(["ask", "hi", "--json"] + endpoints, environment: environment)

            // then
            #expect(plain.status == 0, "stderr: \(plain.stderr)")
            #expect(plain.stdout == "safe text red desrever end\n")
            #expect(!Self.hasControls(plain.stdout + plain.stderr))
            #expect(raw.stdout == Self.hostileReply + "\n")
            let completed = try #require(try json.jsonLines().last)
            #expect(completed["text"] == .string(Self.hostileReply))
            #expect(!json.stdout.unicodeScalars.contains("\u{1B}"), "JSON escapes control characters")
        }
    }

    @Test("tool output and stored titles are sanitized in chat, threads list and threads show", .timeLimit(.minutes(1)))
    func storedText() async throws {
        // given: a thread whose title and messages carry escape sequences
        let environment = CLIProcess.isolatedEnvironment()
        try await CLIThreadStore.seed("abcd0000-0000-4000-8000-000000000001", title: "title \u{1B}]0;x\u{07}\u{202E}here",
                                      messages: ["question \u{1B}[2J", "answer \u{9B}31m\u{7}"], in: environment)

        // when
        let list = try await CLIProcess.run(["threads", "list"], environment: environment)
        let show = try await CLIProcess.run(["threads", "show", "abcd"], environment: environment)

        // then
        #expect(list.status == 0 && show.status == 0)
        #expect(list.stdout.contains("title here"))
        #expect(show.stdout.contains("you: question \n") && show.stdout.contains("assistant: answer \n"))
        #expect(!Self.hasControls(list.stdout + show.stdout))
    }

    @Test("the email claim from the sign-in server is sanitized in login and status", .timeLimit(.minutes(1)))
    func issuerStrings() async throws {
        let account = ChappieEmulator.Account(email: "eve\u{1B}]0;owned\u{07}\u{202E}@example.com")
        try await ChappieEmulator.with(.init(pollingIntervalSeconds: 1, autoApproveAfterPolls: 1, account: account)) { emulator in
            let environment = CLIProcess.isolatedEnvironment()
            let login = try await CLIProcess.run(["login", "--auth-url", emulator.baseURL.absoluteString], environment: environment)
            let status = try await CLIProcess.run(CLIEmulator.endpointArguments(emulator) + ["status"], environment: environment)
            #expect(login.status == 0 && status.status == 0, "\(login.stderr) \(status.stderr)")
            #expect(login.stdout.contains("Signed in as eve@example.com"))
            #expect(status.stdout.contains("Signed in as eve@example.com"))
            #expect(!Self.hasControls(login.stdout + login.stderr + status.stdout + status.stderr))
            let json = try await CLIProcess.run(CLIEmulator.endpointArguments(emulator) + ["status", "--json"], environment: environment)
            #expect(try json.jsonLines().first?["email"] == .string(account.email), "--json keeps the value, escaped")
        }
    }

    @Test("error messages are sanitized too", .timeLimit(.minutes(1)))
    func errorMessages() async throws {
        let unknown = try await CLIProcess.run(["threads", "show", "ab\u{1B}[2Jcd"], environment: CLIProcess.isolatedEnvironment())
        #expect(unknown.status == 1)
        #expect(unknown.stderr.hasPrefix("chappie: no thread ID starts with"))
        #expect(!Self.hasControls(unknown.stderr))
    }
}
