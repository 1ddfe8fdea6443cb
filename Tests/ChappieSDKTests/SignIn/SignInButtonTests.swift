import Foundation
import Testing
@testable import ChappieCore
@testable import ChappieSDK  // its resource bundle (the privacy manifest)

private let code = ChappieDeviceCode(
    userCode: "ABCD-EFGH1", verificationURL: URL(string: "https://auth.example.com/codex/device")!,
    expiresAt: Date(timeIntervalSince1970: 900), pollingInterval: 5)

private func snapshot(_ state: ChappieAuthState, _ link: ChappieDeviceLinkState = .idle) -> ChappieAuthSessionSnapshot {
    ChappieAuthSessionSnapshot(state: state, deviceLinkState: link, accountInfo: nil, lastError: nil)
}

@Suite("Sign-in button logic")
struct SignInButtonTests {
    @Test("the button's title, disabled and hidden flags and code follow the session", arguments: [
        (snapshot(.restoring), "Checking sign-in…", true, true, false),
        (snapshot(.signedOut), "Sign in with ChatGPT", false, false, false),
        (snapshot(.signedOut, .failed(.deviceCodeDenied)), "Sign in with ChatGPT", false, false, false),
        (snapshot(.signedOut, .expired), "Sign in with ChatGPT", false, false, false),
        (snapshot(.reauthenticationRequired), "Sign in again with ChatGPT", false, false, false),
        (snapshot(.signingIn, .requestingCode), "Requesting a code…", true, false, false),
        (snapshot(.signingIn, .awaitingApproval(code)), "Waiting for approval…", true, false, true),
        (snapshot(.signingIn, .exchangingTokens), "Finishing sign-in…", true, false, false),
        (snapshot(.signedIn, .linked), "Signed in", true, true, false),
        (snapshot(.signedIn), "Signed in", true, true, false),
    ])
    func buttonState(snapshot: ChappieAuthSessionSnapshot, title: String, disabled: Bool, hidden: Bool, hasCode: Bool) {
        // when
        let state = ChappieSignInButtonState(snapshot: snapshot)
        // then
        #expect(state.title == title)
        #expect(state.isDisabled == disabled)
        #expect(state.isHidden == hidden)
        #expect(state.deviceCode == (hasCode ? code : nil))
    }

    @Test("a new code is copied and the onboarding sheet opens")
    func codeWithSheet() {
        #expect(ChappieSignInAction.actions(forDeviceCode: code, showsOnboardingSheet: true)
            == [.copyToPasteboard("ABCD-EFGH1"), .presentOnboarding(code)])
    }

    @Test("without the sheet a new code is copied and the verification URL opens at once")
    func codeWithoutSheet() {
        #expect(ChappieSignInAction.actions(forDeviceCode: code, showsOnboardingSheet: false)
            == [.copyToPasteboard("ABCD-EFGH1"), .openURL(URL(string: "https://auth.example.com/codex/device")!)])
    }

    @Test("when the code goes away the sheet closes", arguments: [true, false])
    func codeGone(showsOnboardingSheet: Bool) {
        #expect(ChappieSignInAction.actions(forDeviceCode: nil, showsOnboardingSheet: showsOnboardingSheet) == [.dismissOnboarding])
    }

    @Test("the onboarding sheet has the three documented steps in order")
    func onboardingSteps() {
        #expect(ChappieSignInOnboardingStep.allCases.map(\.title) == ["Open OpenAI", "Continue with ChatGPT", "Paste your device code"])
        #expect(ChappieSignInOnboardingStep.allCases.map(\.id) == [1, 2, 3])
        #expect(ChappieSignInOnboardingStep.allCases.allSatisfy { !$0.detail.isEmpty })
    }

    @Test("the privacy manifest is bundled with ChappieSDK and declares no tracking")
    func privacyManifest() throws {
        let url = try #require(Bundle.module.url(forResource: "PrivacyInfo", withExtension: "xcprivacy"))
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: Any])
        #expect(plist["NSPrivacyTracking"] as? Bool == false)
        let collected = try #require(plist["NSPrivacyCollectedDataTypes"] as? [[String: Any]])
        let types = Set(collected.compactMap { $0["NSPrivacyCollectedDataType"] as? String })
        #expect(types == ["NSPrivacyCollectedDataTypeUserID", "NSPrivacyCollectedDataTypeEmailAddress"])
        #expect(collected.allSatisfy { $0["NSPrivacyCollectedDataTypeTracking"] as? Bool == false })
        #expect(collected.allSatisfy { $0["NSPrivacyCollectedDataTypeLinked"] as? Bool == true })
        #expect(collected.allSatisfy {
            $0["NSPrivacyCollectedDataTypePurposes"] as? [String] == ["NSPrivacyCollectedDataTypePurposeAppFunctionality"]
        })
    }
}
