// The XCTest example of README.md ("Testing your app"), compiled and run as is.
import ChappieSDK
import ChappieSDKTesting
import XCTest

final class GreetingTests: XCTestCase {
    func testGreetsTheUser() async throws {
        try await ChappieTestEmulator.withSignedIn { app in
            await app.emulator.scriptReplies(.text("Hello, Ada!"))
            let reply = try await app.client.send("Say hello to Ada")
            XCTAssertEqual(reply, "Hello, Ada!")
        }
    }
}
