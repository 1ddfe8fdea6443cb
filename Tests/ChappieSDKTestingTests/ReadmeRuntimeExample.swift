// The durable-threads example of README.md ("Durable threads"), compiled and run as is.
import ChappieSDK
import ChappieSDKRuntime
import ChappieSDKTesting
import Foundation
import Testing

@Test func conversationSurvivesARelaunch() async throws {
    try await ChappieTestEmulator.withSignedIn { app in
        let folder = FileManager.default.temporaryDirectory.appending(path: UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: folder) }
        // first launch: every turn is stored before send returns
        let runtime = app.client.runtime(store: ChappieFileThreadStore(directory: folder))
        _ = try await runtime.send("Remember: my SKU is A1")
        let threadID = try #require(await runtime.currentThreadID)
        // next launch: a new store and client pick the thread up with its context
        let store = ChappieFileThreadStore(directory: folder)
        #expect(try await store.threads(includingArchived: false).map(\.id) == [threadID])
        let resumed = ChappieClient(configuration: app.configuration).runtime(store: store)
        try await resumed.resume(threadID: threadID)
        for try await event in resumed.stream("What is my SKU?") {
            if case .turnCompleted(let turn) = event { #expect(turn.status == .completed) }
        }
        #expect(try await store.thread(id: threadID).turns.count == 2)
    }
}
