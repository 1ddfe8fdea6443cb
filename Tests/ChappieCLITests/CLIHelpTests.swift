@testable import chappie
import ChappieTestSupport
import Testing

@Suite("chappie help")
struct CLIHelpTests {
    @Test("help COMMAND and COMMAND --help print that command's usage line and exit 0", arguments: ArgumentParser.commands.sorted())
    func helpForEveryCommand(command: String) async throws {
        // when
        let help = try await CLIProcess.run(["help", command])
        let flag = try await CLIProcess.run([command, "--help"])

        // then
        #expect(help.status == 0, "stderr: \(help.stderr)")
        #expect(help.stderr.isEmpty)
        let lines = help.stdout.split(separator: "\n")
        #expect(lines.first == "Usage: chappie \(command)" || lines.first?.hasPrefix("Usage: chappie \(command) ") == true,
                "\(help.stdout)")
        #expect(flag.status == 0, "stderr: \(flag.stderr)")
        #expect(flag.stdout == help.stdout)
    }

    @Test("the overview lists every command")
    func overviewListsEveryCommand() async throws {
        let overview = try await CLIProcess.run(["help"])
        #expect(overview.status == 0)
        #expect(overview.stdout.hasPrefix("chappie — "))
        let listed = Set(overview.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("  --") }
            .compactMap { $0.split(separator: " ").first.map(String.init) })
        #expect(listed == ArgumentParser.commands)
        let bare = try await CLIProcess.run([])
        #expect(bare.stderr == overview.stdout && bare.stdout.isEmpty && bare.status == 2,
                "no command is a usage error that shows the overview on standard error")
    }
}
