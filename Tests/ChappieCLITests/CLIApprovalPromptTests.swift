import ChappieEmulator
import ChappieSDK
import ChappieSDKTesting
import ChappieTestSupport
import Foundation
import Testing

/// chat's approval prompt on a terminal.
@Suite("chappie chat asks before a tool runs")
struct CLIApprovalPromptTests {
    @Test("on a terminal, the approval question is answered on its line and followed by the tool's result",
          .enabled(if: CLIProcess.pseudoTerminalAvailable), .timeLimit(.minutes(1)))
    func approvalPrompt() async throws {
        try await CLIEmulator.with { emulator, environment in
            try await CLIEmulator.signIn(emulator, environment: environment)
            await emulator.scriptToolCall("lookup_stock", arguments: ["sku": "A1"])
            let chat = try PseudoTerminalSession(["chat", "--sample", "inventory"] + CLIEmulator.endpointArguments(emulator), environment: environment)
            defer { chat.terminate() }
            try #require(await chat.waitFor("you> "), "output: \(chat.shown)")
            chat.type("stock of A1?\r")
            try #require(await chat.waitFor("? [y/N] "), "output: \(chat.shown)")
            chat.type("y\r")
            try #require(await chat.waitFor("you> ", count: 2), "output: \(chat.shown)")
            let shown = chat.shown
            #expect(shown.contains("[tool] lookup_stock({\"sku\":\"A1\"})\nAllow the tool lookup_stock({\"sku\":\"A1\"})? [y/N] y\n"
                                   + "[tool] lookup_stock completed: {\"in_stock\":7,\"sku\":\"A1\"}\n"), "\(shown.debugDescription)")
        }
    }
}
