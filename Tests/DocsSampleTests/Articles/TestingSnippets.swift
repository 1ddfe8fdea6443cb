import ChappieSDK
import ChappieSDKTesting
import Testing

// The code of the DocC article "Testing your app" (Sources/ChappieSDKTesting/ChappieSDKTesting.docc)
// besides README's two examples (Tests/ChappieSDKTestingTests), compiled and run here;
// CatalogSnippetTests checks that each of the article's blocks appears in one of them.

@Test("a usage limit reaches the app as a typed error")
func testingUsageLimit() async throws {
    try await ChappieTestEmulator.withSignedIn { app in
        await app.emulator.scriptReplies(.usageLimitReached(resetsInSeconds: 3600))
        await #expect(throws: ChappieClientError.self) { _ = try await app.client.send("Hi") }
    }
}

@Test("a tool the model calls runs the app's handler")
func testingToolCall() async throws {
    let lookup = ChappieHostTool(name: "lookup_stock", description: "Units in stock for a SKU.") { call in
        ChappieToolResult(output: #"{"sku":"A1","units":3}"#)
    }
    try await ChappieTestEmulator.withSignedIn(tools: [lookup]) { app in
        await app.emulator.scriptToolCall("lookup_stock", arguments: ["sku": "A1"])
        await app.emulator.scriptReplies(.text("3 left."))
        let reply = try await app.client.send("How many A1?")
        #expect(reply == "3 left.")
    }
}

@Test("a session restored from an expired credential is signed in; the next call refreshes it")
@MainActor
func testingFixtures() async throws {
    let configuration = try await ChappieAuthFixtures.expired()
    let session = ChappieAuthSession(configuration: configuration)
    #expect(session.state == .signedIn)
}

@Test("the SDK's log events can be read without any token in them")
func testingLogSink() async throws {
    let log = ChappieInMemoryLogSink()
    try await ChappieTestEmulator.withSignedIn(configure: { $0.logSink = log }) { app in
        _ = try await app.client.send("Hi")
    }
    #expect(!log.events.isEmpty)
}
