import ChappieEmulator
import ChappieSDK
import ChappieTestSupport
import Foundation
import Testing

/// The `completed` JSON lines of a `--json` run.
private func completedEvents(_ stdout: String) throws -> [ChappieJSONValue] {
    try stdout.split(separator: "\n").map { try ChappieJSONValue(jsonData: Data($0.utf8)) }.filter { $0["event"] == "completed" }
}

/// The WebSocket upgrades (`GET /backend-api/codex/responses`) the emulator received.
private func upgrades(_ emulator: ChappieEmulator) async -> Int {
    await emulator.recordedRequests().filter { $0.method == "GET" && $0.path == "/backend-api/codex/responses" }.count
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

    @Test("ask with a 401 on every WebSocket upgrade answers over HTTP after one refresh and stays signed in", .timeLimit(.minutes(1)))
    func unauthorizedUpgrade() async throws {
        try await CLIEmulator.with { emulator, environment in
            try await CLIEmulator.signIn(emulator, environment: environment)
            for _ in 0..<8 { await emulator.enqueueWebSocketFault(.refuseHandshake(status: 401)) }
            let endpoints = CLIEmulator.endpointArguments(emulator)
            let refreshes = await emulator.refreshGrantsServed
            // when
            let ask = try await CLIProcess.run(["ask", "still there?", "--json", "--transport", "auto"] + endpoints, environment: environment)
            let status = try await CLIProcess.run(["status"] + endpoints, environment: environment)
            // then
            #expect(ask.status == 0, "stderr: \(ask.stderr)")
            #expect(try completedEvents(ask.stdout).map { $0["transport"] } == ["http"])
            #expect(await upgrades(emulator) == 2, "the upgrade and its one retry after the refresh")
            #expect(await emulator.refreshGrantsServed - refreshes == 1)
            #expect(status.status == 0 && status.stdout.contains("Signed in as user@example.com"), "\(status.stdout)")
        }
    }

    @Test("--transport websocket tries a refused upgrade no more than the reconnect policy allows (1 + 5), a 4xx once",
          .timeLimit(.minutes(1)), arguments: [(503, 6), (403, 1)])
    func refusedUpgrade(status: Int, expectedUpgrades: Int) async throws {
        try await CLIEmulator.with { emulator, environment in
            try await CLIEmulator.signIn(emulator, environment: environment)
            for _ in 0..<20 { await emulator.enqueueWebSocketFault(.refuseHandshake(status: status)) }
            // when
            let ask = try await CLIProcess.run(["ask", "hi", "--transport", "websocket"] + CLIEmulator.endpointArguments(emulator),
                                               environment: environment)
            // then
            #expect(ask.status != 0)
            #expect(ask.stderr.contains("HTTP \(status)"), "stderr: \(ask.stderr)")
            #expect(await upgrades(emulator) == expectedUpgrades)
        }
    }

    @Test("an unknown transport is a usage error")
    func unknownTransport() async throws {
        let result = try await CLIProcess.run(["ask", "hi", "--transport", "carrier-pigeon"], environment: CLIProcess.isolatedEnvironment())
        #expect(result.status == 2)
        #expect(result.stderr.contains("--transport must be auto, websocket or http"))
    }
}

@Suite("chappie chat over the WebSocket")
struct CLIWebSocketChatTests {
    @Test("chat --transport websocket does 20 turns on one socket, each after the first sending only its new items", .timeLimit(.minutes(2)))
    func twentyTurns() async throws {
        try await CLIEmulator.with { emulator, environment in
            try await CLIEmulator.signIn(emulator, environment: environment)
            let before = emulator.connectionsAccepted
            let prompts = (1...20).map { "prompt number \($0)" }
            let chat = try await CLIProcess.run(["chat", "--transport", "websocket", "--json"] + CLIEmulator.endpointArguments(emulator),
                                                stdin: prompts.joined(separator: "\n") + "\n", environment: environment)
            #expect(chat.status == 0, "stderr: \(chat.stderr)")
            #expect(emulator.connectionsAccepted - before == 1, "one socket and no HTTP request")
            let frames = try await emulator.recordedRequests().filter { $0.method == "WS" }.map { try ChappieJSONValue(jsonData: $0.body) }
            let turns = frames.filter { $0["generate"] != false }
            try #require(turns.count == 20)
            for (index, frame) in turns.enumerated() {
                let texts = CLIEmulator.inputTexts(frame)
                #expect(texts.last == prompts[index])
                if index > 0 { #expect(texts == [prompts[index]], "turn \(index + 1) sent \(texts)") }
            }
            let completed = chat.stdout.split(separator: "\n").filter { $0.contains(#""event":"completed""#) }
            #expect(completed.count == 20 && completed.allSatisfy { $0.contains(#""transport":"websocket""#) })
        }
    }
}
