import ChappieEmulator
import ChappieSDK
import Foundation
import Testing

/// The `completed` JSON lines of a `--json` run.
private func completedEvents(_ stdout: String) throws -> [ChappieJSONValue] {
    try stdout.split(separator: "\n").map { try ChappieJSONValue(jsonData: Data($0.utf8)) }.filter { $0["event"] == "completed" }
}

@Suite("chappie --transport")
struct CLITransportTests {
    @Test("--json names the transport of each turn; --transport chooses it", .timeLimit(.minutes(1)), arguments: ["http", "websocket"])
    func transportShown(_ transport: String) async throws {
        try await CLIEmulator.with { emulator, environment in
            try await CLIEmulator.signIn(emulator, environment: environment)
            let ask = try await CLIProcess.run(["ask", "which transport?", "--json", "--transport", transport] + CLIEmulator.endpointArguments(emulator),
                                               environment: environment)
            #expect(ask.status == 0, "stderr: \(ask.stderr)")
            #expect(try completedEvents(ask.stdout).map { $0["transport"] } == [.string(transport)])
        }
    }

    @Test("an unknown transport is a usage error")
    func unknownTransport() async throws {
        let result = try await CLIProcess.run(["ask", "hi", "--transport", "carrier-pigeon"], environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 2)
        #expect(result.stderr.contains("--transport must be auto, websocket or http"))
    }
}
