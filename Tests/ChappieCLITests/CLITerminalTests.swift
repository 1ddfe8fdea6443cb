import ChappieEmulator
import ChappieTestSupport
import Foundation
import Testing

@Suite("chappie output on pipes and terminals (NO_COLOR)")
struct CLITerminalTests {
    /// Commands whose output is styled on a terminal (bold headers, dim notes), run on a store
    /// holding one thread.
    static let styledCommands: [[String]] = [["threads", "list"], ["threads", "show", "abcd"], ["threads", "list", "--all"], ["help"], ["status"]]

    @Test("piped output has no escape sequences, with NO_COLOR or without it", arguments: styledCommands, ["1", ""])
    func pipedHasNoEscapes(arguments: [String], noColor: String) async throws {
        // given
        var environment = CLIProcess.isolatedEnvironment()
        environment["NO_COLOR"] = noColor
        try await CLIThreadStore.seed("abcd0000-0000-4000-8000-000000000001", in: environment)

        // when
        let result = try await CLIProcess.run(arguments, environment: environment)

        // then: status exits 3, as no one is signed in
        #expect(result.status == (arguments == ["status"] ? 3 : 0), "stderr: \(result.stderr)")
        #expect(!result.stdout.isEmpty)
        #expect(!result.containsEscape, "escape in: \(result.stdout.debugDescription) \(result.stderr.debugDescription)")
    }

    @Test("piped models, usage and ask on an emulator have no escape sequences", .timeLimit(.minutes(1)))
    func pipedEmulatorCommandsHaveNoEscapes() async throws {
        try await CLIEmulator.with { emulator, isolated in
            try await CLIEmulator.signIn(emulator, environment: isolated)
            for noColor in ["1", ""] {
                var environment = isolated
                environment["NO_COLOR"] = noColor
                for command in [["models"], ["usage"], ["ask", "plain please"]] {
                    let result = try await CLIProcess.run(command + CLIEmulator.endpointArguments(emulator), environment: environment)
                    #expect(result.status == 0, "\(command) stderr: \(result.stderr)")
                    #expect(!result.stdout.isEmpty)
                    #expect(!result.containsEscape, "\(command) NO_COLOR=\(noColor): \(result.stdout.debugDescription)")
                }
            }
        }
    }

    @Test("on a terminal, output is styled unless NO_COLOR is set to a non-empty value",
          .enabled(if: CLIProcess.pseudoTerminalAvailable), .timeLimit(.minutes(1)),
          arguments: [(noColor: String?.none, styled: true), (noColor: "", styled: true), (noColor: "1", styled: false)])
    func terminalStyling(noColor: String?, styled: Bool) async throws {
        // given
        var environment = CLIProcess.isolatedEnvironment()
        if let noColor { environment["NO_COLOR"] = noColor }
        try await CLIThreadStore.seed("abcd0000-0000-4000-8000-000000000001", title: "styled thread", in: environment)

        // when
        let list = try await CLIProcess.runInPseudoTerminal(["threads", "list"], environment: environment)
        let show = try await CLIProcess.runInPseudoTerminal(["threads", "show", "abcd"], environment: environment)

        // then
        #expect(list.status == 0, "output: \(list.stdout)")
        #expect(show.status == 0, "output: \(show.stdout)")
        #expect(list.stdout.contains("styled thread"))
        if styled {
            #expect(list.stdout.hasPrefix("\u{1B}[1mID "), "bold header: \(list.stdout.debugDescription)")
            #expect(show.stdout.contains("\u{1B}[1myou:\u{1B}[0m a seeded question"))
        } else {
            #expect(!list.containsEscape, "\(list.stdout.debugDescription)")
            #expect(!show.containsEscape, "\(show.stdout.debugDescription)")
        }
    }

    @Test("demo on a terminal shows colour and a spinner; with NO_COLOR it shows neither",
          .enabled(if: CLIProcess.pseudoTerminalAvailable), .timeLimit(.minutes(1)), arguments: [false, true])
    func terminalDemo(noColor: Bool) async throws {
        // given
        var environment = CLIProcess.isolatedEnvironment()
        if noColor { environment["NO_COLOR"] = "1" }

        // when
        let demo = try await CLIProcess.runInPseudoTerminal(["demo"], environment: environment)

        // then
        #expect(demo.status == 0, "output: \(demo.stdout)")
        #expect(demo.stdout.contains("Demo complete."))
        if noColor {
            #expect(!demo.containsEscape, "\(demo.stdout.debugDescription)")
            #expect(demo.stdout.contains("Waiting for approval…\r\n"), "a plain line instead of the spinner")
        } else {
            #expect(demo.stdout.contains("\u{1B}[1mChappie demo\u{1B}[0m"))
            #expect(demo.stdout.contains("\r\u{1B}[2K"), "the spinner redraws its line")
        }
    }
}
