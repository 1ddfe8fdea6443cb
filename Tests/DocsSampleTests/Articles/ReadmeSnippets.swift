import ChappieSDK
import ChappieSDKTesting
import Foundation
import Testing

// README's opening example, compiled and run here; CatalogSnippetTests checks that README's code
// blocks appear in compiled files (its test examples live in Tests/ChappieSDKTestingTests).

@MainActor  // the auth session lives on the main actor
func summariseMyDay(userID: String) async throws {
    let configuration = ChappieConfiguration(keychainAccount: userID)
    let session = Chappie.authSession(configuration: configuration)
    await session.reload()  // the stored sign-in, if any, has been read
    if session.state != .signedIn {  // a returning user is signed in already
        try await session.startDeviceCodeSignIn { code in
            print("Open \(code.verificationURL) and enter \(code.userCode)")
        }
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
            try await summariseMyDay(userID: currentUser.id)
            #expect(docs.output.text.hasSuffix("\nThree meetings, one lunch."))
            #expect(docs.output.text.hasPrefix("Open http://127.0.0.1:"))
            // A returning user is not asked to sign in again.
            await docs.emulator.scriptReplies(.text(" And a walk."))
            try await summariseMyDay(userID: currentUser.id)
            #expect(docs.output.text.components(separatedBy: "Open http").count == 2)
            #expect(docs.output.text.hasSuffix("lunch. And a walk."))
        }
    }
}
