import ChappieSDK
import ChappieSDKTesting
import Testing

// README's opening example, compiled and run here; CatalogSnippetTests checks that README's code
// blocks appear in compiled files (its test examples live in Tests/ChappieSDKTestingTests).

@MainActor
func readmePitch() async throws {
    let configuration = ChappieConfiguration(keychainAccount: currentUser.id)
    let session = Chappie.authSession(configuration: configuration)
    try await session.startDeviceCodeSignIn { code in
        print("Open \(code.verificationURL) and enter \(code.userCode)")
    }
    let client = Chappie.client(configuration: configuration)
    for try await event in client.stream("Summarise my day") {
        if case .textDelta(let text) = event { print(text, terminator: "") }
    }
}

@Suite("README: the opening example")
struct ReadmeSnippetTests {
    @Test("it signs the app's user in with a device code and streams the reply")
    @MainActor
    func pitch() async throws {
        try await DocsEnvironment.run { docs in
            await docs.emulator.scriptReplies(.text("Three meetings, one lunch."))
            try await readmePitch()
            #expect(docs.output.text.hasSuffix("\nThree meetings, one lunch."))
            #expect(docs.output.text.hasPrefix("Open http://127.0.0.1:"))
        }
    }
}
