import ChappieSDK
import ChappieSDKTesting
import Foundation
import Testing

// README's opening example, compiled and run here; CatalogSnippetTests checks that README's code
// blocks appear in compiled files (its test examples live in Tests/ChappieSDKTestingTests).

struct DayPlan: ChappieGenerable {  // a reply as a Swift type: its JSON Schema is derived
    var meetings: [String]
    var freeHours: Int
}

@MainActor  // the auth session lives on the main actor
func planMyDay(userID: String) async throws -> DayPlan {
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
    return try await client.send("Now plan it", generating: DayPlan.self)
}

@Suite("README: the opening example")
struct ReadmeSnippetTests {
    @Test("it signs the app's user in with a device code, streams a reply and returns a typed one")
    @MainActor
    func pitch() async throws {
        try await DocsEnvironment.run { docs in
            await docs.emulator.scriptReplies(.text("Three meetings, one lunch."), .text(#"{"meetings":["standup","review","lunch"],"freeHours":2}"#))
            let plan = try await planMyDay(userID: currentUser.id)
            #expect(docs.output.text.hasSuffix("\nThree meetings, one lunch."))
            #expect(docs.output.text.hasPrefix("Open http://127.0.0.1:"))
            #expect(plan.meetings == ["standup", "review", "lunch"] && plan.freeHours == 2)
            // A returning user is not asked to sign in again.
            await docs.emulator.scriptReplies(.text(" And a walk."), .text(#"{"meetings":[],"freeHours":8}"#))
            #expect(try await planMyDay(userID: currentUser.id).freeHours == 8)
            #expect(docs.output.text.components(separatedBy: "Open http").count == 2)
            #expect(docs.output.text.hasSuffix("lunch. And a walk."))
        }
    }
}
