// The Swift Testing example of README.md ("Testing your app"), compiled and run as is.
import ChappieSDK
import ChappieSDKTesting
import Testing

@Test func greetsTheUser() async throws {
    try await ChappieTestEmulator.withSignedIn { app in
        await app.emulator.scriptReplies(.text("Hello, Ada!"))
        let reply = try await app.client.send("Say hello to Ada")
        #expect(reply == "Hello, Ada!")
    }
}
