import ChappieEmulator
import ChappieSDKTesting
import ChappieTestSupport
import Foundation
import Testing
@testable import ChappieCore

@Suite("One turn at a time: re-entry and cancellation")
struct TurnGateTests {
    @Test("a turn started from the client's own tool handler throws reentrantTurn at once, and the outer turn completes",
          .timeLimit(.minutes(1)), arguments: ["send", "stream", "response", "compactContext"])
    func reentrantTurn(call: String) async throws {
        let box = TurnGateClientBox()
        let tool = ChappieHostTool(name: "nested", description: "Starts a turn", inputSchema: ["type": "object"], policy: .automatic) { _ in
            guard let client = await box.client else { return ChappieToolResult(output: "no client") }
            do {
                switch call {
                case "send": _ = try await client.send("inner")
                case "stream": for try await _ in client.stream("inner") {}
                case "response": _ = try await client.response(ChappieResponseRequest(messages: [.user("inner")]))
                default: _ = try await client.compactContext()
                }
                await box.record(nil)
            } catch {
                await box.record(error)
            }
            return ChappieToolResult(output: "done")
        }
        try await withSignedInClient(tools: [tool]) { emulator, client, _ in
            await box.set(client)
            await emulator.scriptToolCall("nested")
            // when
            let reply = try await client.send("outer")
            // then: the inner call failed at once (before, it waited forever for the turn waiting for it)
            #expect(!reply.isEmpty)
            #expect(await box.outcome as? ChappieClientError == .reentrantTurn)
            #expect(ChappieClientError.reentrantTurn.errorDescription?.contains("tool handler") == true)
            // the outer request and its tool round went out, nothing for the inner call
            let inputs = try await responseRequests(emulator).map { try json($0)["input"]?.jsonString ?? "" }
            #expect(inputs.count == 2)
            #expect(!inputs.contains { $0.contains("inner") })
        }
    }

    @Test("a turn waiting for the running one ends at once when its task is cancelled, and sends nothing", .timeLimit(.minutes(1)))
    func cancelWhileWaiting() async throws {
        let handler = HeldHandler()
        let tool = ChappieHostTool(name: "hold", description: "Waits", inputSchema: ["type": "object"], policy: .automatic) { _ in
            await handler.hold()
            return ChappieToolResult(output: "released")
        }
        try await withSignedInClient(tools: [tool]) { emulator, client, _ in
            await emulator.scriptToolCall("hold")
            let first = Task { try await client.send("first") }
            await handler.waitUntilHeld()  // the first turn holds the client now
            // when
            let second = Task { try await client.send("second") }
            second.cancel()
            let outcome = await second.result
            // then: it ended while the first turn still runs (before, it waited for that turn)
            #expect(throws: CancellationError.self) { try outcome.get() }
            await handler.release()
            _ = try await first.value
            let inputs = try await responseRequests(emulator).map { try json($0)["input"]?.jsonString ?? "" }
            #expect(!inputs.contains { $0.contains("second") })
            // and the client takes the next turn
            #expect(try await !client.send("third").isEmpty)
        }
    }

    @Test("waiters are admitted in arrival order; a cancelled one leaves, the others keep their places", .timeLimit(.minutes(1)))
    func gateOrder() async throws {
        let gate = FIFOGate()
        #expect(gate.tryEnter())
        #expect(!gate.tryEnter())
        let order = OrderLog()
        var tasks: [Task<Void, any Error>] = []
        for name in ["a", "b", "c"] {
            tasks.append(Task {
                try await gate.enter()
                await order.append(name)
                gate.leave()
            })
            while gate.queuedCount < tasks.count { await Task.yield() }  // queued: arrival order is known
        }
        // when
        tasks[1].cancel()
        // then
        await #expect(throws: CancellationError.self) { try await tasks[1].value }
        #expect(gate.queuedCount == 2)
        gate.leave()
        try await tasks[0].value
        try await tasks[2].value
        #expect(await order.entries == ["a", "c"])
        #expect(!gate.isHeld)
        // a task cancelled before it arrives does not enter a held gate
        #expect(gate.tryEnter())
        let late = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await gate.enter()
        }
        await #expect(throws: CancellationError.self) { try await late.value }
        gate.leave()
        #expect(!gate.isHeld)
    }
}

/// Lets a tool handler reach the client it runs in, and records how its inner call ended.
private actor TurnGateClientBox {
    private(set) var client: ChappieClient?
    private(set) var outcome: (any Error)?
    func set(_ client: ChappieClient) { self.client = client }
    func record(_ error: (any Error)?) { outcome = error }
}

/// The order in which tasks passed the gate.
private actor OrderLog {
    private(set) var entries: [String] = []
    func append(_ entry: String) { entries.append(entry) }
}
