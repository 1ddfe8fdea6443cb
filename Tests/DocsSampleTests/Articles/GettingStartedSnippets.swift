import ChappieSDK
import ChappieSDKTesting
import Testing

// The code of the DocC article "Getting started" (Sources/ChappieSDK/ChappieSDK.docc), compiled
// and run here; CatalogSnippetTests checks that each of the article's blocks appears here.

@MainActor
func gettingStarted(userID: String) async throws {
    let configuration = ChappieConfiguration(keychainAccount: userID)
    let session = Chappie.authSession(configuration: configuration)
    await session.reload()  // waits for a stored sign-in the store reads asynchronously
    if session.state != .signedIn {
        try await session.startDeviceCodeSignIn { code in
            print("Open \(code.verificationURL) and enter \(code.userCode)")
        }
    }
    let client = Chappie.client(configuration: configuration)
    for try await event in client.stream("Summarise my day") {
        if case .textDelta(let text) = event { print(text, terminator: "") }
    }
}

func summarise(configuration: ChappieConfiguration) async throws -> String {
    let client = Chappie.client(configuration: configuration)
    await client.prewarm()  // optional: opens the connection ahead of the first turn
    let reply = try await client.send("Summarise my day")
    await client.shutdown()  // closes the connection; the client's threads have ended
    return reply
}

@Suite("DocC articles: Getting started")
struct GettingStartedSnippetTests {
    @Test("a new user signs in with the device code, then the reply streams")
    @MainActor
    func signInThenStream() async throws {
        try await DocsEnvironment.run { docs in
            await docs.emulator.scriptReplies(.text("You have two meetings."))
            try await gettingStarted(userID: "new-user")
            let lines = docs.output.text.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.first?.hasPrefix("Open http://127.0.0.1:") == true)
            #expect(lines.last == "You have two meetings.")
        }
    }

    @Test("a returning user streams at once")
    @MainActor
    func returningUser() async throws {
        try await DocsEnvironment.run { docs in
            await docs.emulator.scriptReplies(.text("Welcome back."))
            try await gettingStarted(userID: "default")
            #expect(docs.output.text == "Welcome back.")
        }
    }

    @Test("a client warmed ahead of its turn answers, then shuts down")
    func lifetime() async throws {
        try await DocsEnvironment.run { docs in
            await docs.emulator.scriptReplies(.text("You have two meetings."))
            let reply = try await summarise(configuration: ChappieConfiguration())
            #expect(reply == "You have two meetings.")
        }
    }
}
