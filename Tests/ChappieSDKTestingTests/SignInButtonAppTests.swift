import ChappieSDK
import ChappieSDKTesting
import Testing

/// What the `ChappieSignIn` button shows and does during a real sign-in against the emulator,
/// through its platform-independent state (the SwiftUI view only renders it).
@Suite("App tests: sign-in button")
struct SignInButtonAppTests {
    @Test("enabled, then disabled while signing in with the code copied and the sheet shown, then hidden")
    @MainActor
    func buttonDuringSignIn() async throws {
        try await ChappieTestEmulator.with { _, configuration in
            // given
            let session = ChappieAuthSession(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            await session.reload()
            var updates = session.updates.makeAsyncIterator()
            let initial = ChappieSignInButtonState(snapshot: try #require(await updates.next()))
            #expect(initial.title == "Sign in with ChatGPT")
            #expect(!initial.isDisabled && !initial.isHidden)
            // when
            try await session.startDeviceCodeSignIn()
            var states: [ChappieSignInButtonState] = []
            while let update = await updates.next() {
                states.append(ChappieSignInButtonState(snapshot: update))
                if update.state == .signedIn { break }
            }
            // then
            let awaiting = try #require(states.first { $0.deviceCode != nil })
            let code = try #require(awaiting.deviceCode)
            #expect(awaiting.title == "Waiting for approval…")
            #expect(awaiting.isDisabled)
            #expect(ChappieSignInAction.actions(forDeviceCode: code, showsOnboardingSheet: true)
                == [.copyToPasteboard(code.userCode), .presentOnboarding(code)])
            #expect(states.dropLast().allSatisfy { $0.isDisabled && !$0.isHidden })
            #expect(states.last?.isHidden == true)
            #expect(states.last?.deviceCode == nil)
        }
    }
}
