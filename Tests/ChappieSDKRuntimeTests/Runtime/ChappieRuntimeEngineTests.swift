import ChappieEmulator
@testable import ChappieCore
import ChappieSDKRuntime
import ChappieSDKTesting
import ChappieTestSupport
import Foundation
import Testing

/// The runtime runs its turns through the client's one conversation engine: one queue, and the
/// turn stored before anything queued behind it runs.
@Suite("Runtime on the client's conversation engine")
struct ChappieRuntimeEngineTests {
    @Test("a runtime turn or thread change started from the turn's own tool handler throws reentrantTurn at once; the outer turn is stored",
          .timeLimit(.minutes(1)), arguments: ["send", "compact", "resume", "waitUntilIdle"])
    func reentrantRuntimeCall(call: String) async throws {
        let box = RuntimeBox()
        let tool = ChappieHostTool(name: "nested", description: "Calls the runtime", inputSchema: ["type": "object"], policy: .automatic) { _ in
            guard let runtime = await box.runtime else { return ChappieToolResult(output: "no runtime") }
            do {
                switch call {
                case "send": _ = try await runtime.send("inner")
                case "compact": _ = try await runtime.compact(summary: "s")
                case "resume": _ = try await runtime.resume(threadID: UUID())
                default: await runtime.waitUntilIdle()
                }
                await box.record(nil)
            } catch {
                await box.record(error)
            }
            return ChappieToolResult(output: "done")
        }
        try await ChappieTestEmulator.with { emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            let client = ChappieClient(configuration: configuration, tools: [tool], timeSource: ChappieVirtualTime().timeSource)
            let store = ChappieInMemoryThreadStore()
            let runtime = client.runtime(store: store)
            await box.set(runtime)
            await emulator.scriptToolCall("nested")
            // when
            let reply = try await runtime.send("outer")
            // then: the inner call failed at once (before, it waited forever for the runtime's
            // turn, which waited for the handler); waiting for idleness from inside just returns
            #expect(!reply.isEmpty)
            if call == "waitUntilIdle" {
                #expect(await box.finished)
            } else {
                #expect(await box.outcome as? ChappieClientError == .reentrantTurn)
            }
            let thread = try await store.thread(id: try #require(await runtime.currentThreadID))
            #expect(thread.turns.map(\.status) == [.completed])
            #expect(thread.turns.first?.toolCalls.map(\.status) == [.completed])
            await client.shutdown()
        }
    }

    @Test("a context change asked for while a runtime turn runs waits until the turn is stored", .timeLimit(.minutes(1)))
    func changeQueuedBehindTurn() async throws {
        let handler = HeldHandler()
        let tool = ChappieHostTool(name: "hold", description: "Waits", inputSchema: ["type": "object"], policy: .automatic) { _ in
            await handler.hold()
            return ChappieToolResult(output: "released")
        }
        try await ChappieTestEmulator.with { emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            let client = ChappieClient(configuration: configuration, tools: [tool], timeSource: ChappieVirtualTime().timeSource)
            let store = ChappieInMemoryThreadStore()
            let runtime = client.runtime(store: store)
            await emulator.scriptToolCall("hold")
            let turn = Task { try await runtime.send("keep this") }
            await handler.waitUntilHeld()
            // when: the app starts over while the turn runs
            let clear = Task { await client.clearContext() }
            while client.engine.queuedCount == 0 { await Task.yield() }
            await handler.release()
            _ = try await turn.value
            let cleared = await clear.value
            // then: the thread holds the whole turn (before, the runtime read the client's context
            // after the change had run, and stored an empty conversation for the turn)
            let thread = try await store.thread(id: try #require(await runtime.currentThreadID))
            #expect(thread.context.messages.first?.text == "keep this")
            #expect(thread.context.messages.count == 2)
            #expect(thread.context.threadID != cleared.threadID)
            #expect(cleared.transcript.isEmpty)
            await client.shutdown()
        }
    }
}

/// Lets a tool handler reach the runtime it runs in, and records how its inner call ended.
private actor RuntimeBox {
    private(set) var runtime: ChappieRuntime?
    private(set) var outcome: (any Error)?
    private(set) var finished = false
    func set(_ runtime: ChappieRuntime) { self.runtime = runtime }
    func record(_ error: (any Error)?) {
        outcome = error
        finished = true
    }
}
