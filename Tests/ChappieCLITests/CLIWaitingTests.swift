import ChappieEmulator
import Foundation
import Testing

/// A server that is slow to answer is neither silent for minutes nor waited for three times.
@Suite("chappie while the server does not answer")
struct CLIWaitingTests {
    @Test("on a terminal, ask shows that it waits for the server until the reply's first text",
          .enabled(if: CLIProcess.pseudoTerminalAvailable), .timeLimit(.minutes(1)))
    func showsWaiting() async throws {
        try await CLIEmulator.with { emulator, isolated in
            var environment = isolated
            environment["NO_COLOR"] = ""
            try await CLIEmulator.signIn(emulator, environment: environment)
            // The head at once, then each event 3 s apart: seconds with nothing to show.
            await emulator.enqueue(.slowText("late reply", eventInterval: .seconds(3)))
            let ask = try PseudoTerminalSession(["ask", "hi", "--transport", "http"] + CLIEmulator.endpointArguments(emulator),
                                                environment: environment)
            defer { ask.terminate() }
            #expect(await ask.waitFor("Waiting for the server ("), "output: \(ask.shown)")
            #expect(await ask.waitFor("late reply"), "output: \(ask.shown)")
            // The waiting line was erased before the reply was printed.
            let shown = ask.shown
            let reply = try #require(shown.range(of: "late reply"))
            let lastWait = try #require(shown.range(of: "Waiting for the server (", options: .backwards))
            #expect(lastWait.lowerBound < reply.lowerBound)
            #expect(shown[lastWait.upperBound..<reply.lowerBound].contains("\r\u{1B}[2K"), "\(shown.debugDescription)")
        }
    }
}
