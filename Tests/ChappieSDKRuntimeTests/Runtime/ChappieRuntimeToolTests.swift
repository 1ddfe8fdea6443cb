import ChappieEmulator
import ChappieSDK
import ChappieSDKRuntime
import ChappieSDKTesting
import Foundation
import Testing

@Suite("Runtime tool calls against the emulator")
struct ChappieRuntimeToolTests {
    private static let lookup = ChappieHostTool(name: "lookup", description: "Looks a key up.") { call in
        ChappieToolResult(output: #"{"value":"found \#(call.argumentsJSON?["key"]?.stringValue ?? "?")"}"#)
    }
    private static let remove = ChappieHostTool(name: "remove", description: "Removes a key.", policy: .ask) { _ in
        ChappieToolResult(output: "removed")
    }

    @Test("tool calls stream as normalized events and are stored in the turn and the transcript")
    func toolCallsRecorded() async throws {
        try await withTemporaryFolder { folder in
            try await ChappieTestEmulator.with { _, configuration in
                try await ChappieTestEmulator.signIn(configuration)
                let client = ChappieClient(configuration: configuration, tools: [Self.lookup], timeSource: ChappieVirtualTime().timeSource)
                let store = ChappieFileThreadStore(directory: threadsFolder(in: folder))
                let runtime = client.runtime(store: store)
                var events: [ChappieRuntimeTurnEvent] = []
                for try await event in runtime.stream(#"use tool lookup {"key":"a"}"#) { events.append(event) }
                let requested = events.compactMap { if case .toolCallRequested(let call) = $0 { call } else { nil } }
                let completed = events.compactMap { if case .toolCallCompleted(let call) = $0 { call } else { nil } }
                #expect(requested.map(\.name) == ["lookup"])
                #expect(completed.map(\.status) == [.completed])
                #expect(completed.first?.output == #"{"value":"found a"}"#)
                let thread = try await ChappieFileThreadStore(directory: threadsFolder(in: folder)).thread(id: try #require(await runtime.currentThreadID))
                let turn = try #require(thread.turns.last)
                #expect(turn.toolCalls == completed)
                #expect(thread.context.transcript.contains { if case .functionCall(let call) = $0 { call.name == "lookup" } else { false } })
                #expect(thread.context.transcript.contains { if case .functionCallOutput(_, let output) = $0 { output.contains("found a") } else { false } })
            }
        }
    }

    @Test("a denied approval is stored with the user's decision")
    func deniedApprovalRecorded() async throws {
        try await ChappieTestEmulator.with { _, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            let client = ChappieClient(configuration: configuration, tools: [Self.remove],
                                       toolApprovalHandler: { _ in .denied(reason: "not now") }, timeSource: ChappieVirtualTime().timeSource)
            let store = ChappieInMemoryThreadStore()
            let runtime = client.runtime(store: store)
            var sawApproval = false
            do {
                for try await event in runtime.stream(#"use tool remove {"key":"a"}"#) {
                    if case .approvalRequested(let approval) = event { sawApproval = approval.toolName == "remove" }
                }
            } catch {
                // A denial may end the turn with toolApprovalDenied; either way it is stored.
            }
            #expect(sawApproval)
            let thread = try await store.thread(id: try #require(await runtime.currentThreadID))
            let turn = try #require(thread.turns.last)
            #expect(turn.approvals.map(\.decision) == [.denied])
            #expect(turn.toolCalls.first?.status == .denied)
        }
    }

    @Test("a pending approval reaches the app before the handler is asked; its decision follows before the call's result")
    func approvalOrder() async throws {
        let screen = LockedShown()
        try await ChappieTestEmulator.with { _, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            let client = ChappieClient(configuration: configuration, tools: [Self.remove],
                                       toolApprovalHandler: { _ in
                                           screen.handlerAsked()
                                           return .approved()
                                       }, timeSource: ChappieVirtualTime().timeSource)
            let runtime = client.runtime(store: ChappieInMemoryThreadStore())
            var order: [String] = []
            for try await event in runtime.stream(#"use tool remove {"key":"a"}"#) {
                for _ in 0..<50 { await Task.yield() }  // the app takes its time to show it
                switch event {
                case .approvalRequested(let approval):
                    order.append("approval \(approval.decision.rawValue)")
                    if approval.decision == .pending { screen.show() }
                case .toolCallCompleted(let call): order.append("completed \(call.status.rawValue)")
                default: break
                }
            }
            #expect(screen.shownBeforeHandler == true)
            #expect(order == ["approval pending", "approval approved", "completed completed"])
        }
    }
}

/// Whether the app showed the approval request before the handler was asked.
private final class LockedShown: @unchecked Sendable {
    // Sound: both properties are only touched while holding `lock`.
    private let lock = NSLock()
    private var shown = false
    private var answer: Bool?
    func show() { lock.withLock { shown = true } }
    func handlerAsked() { lock.withLock { answer = shown } }
    var shownBeforeHandler: Bool? { lock.withLock { answer } }
}
