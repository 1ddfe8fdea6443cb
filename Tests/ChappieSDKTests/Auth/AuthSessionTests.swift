import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieCore

@Suite("Auth session")
@MainActor
struct AuthSessionTests {
    @Test("a returning user is signed in from the store, with account info and no token in sight")
    func restoresFromStore() async throws {
        let configuration = try await ChappieAuthFixtures.signedIn(ChappieConfiguration(keychainAccount: "restore-\(UUID())"))
        let session = ChappieAuthSession(configuration: configuration)
        await session.reload()
        #expect(session.state == .signedIn)
        #expect(session.accountInfo == ChappieAccountInfo(email: "tester@example.com", plan: ChappiePlan(rawValue: "plus"),
                                                          userID: "user-test-0001", accountID: "acct-test-0001"))
        #expect(!String(describing: session.snapshot).contains("eyJ"))
    }

    @Test("sign-in walks requesting → awaiting approval (with the code) → exchanging → linked")
    func stateSequence() async throws {
        try await ChappieTestEmulator.with(.init(pollingIntervalSeconds: 1, autoApproveAfterPolls: nil)) { emulator, configuration in
            let gate = SleepGate()
            let session = ChappieAuthSession(configuration: configuration, timeSource: gate.timeSource)
            await session.reload()
            var updates = session.updates.makeAsyncIterator()
            let signIn = Task { try await session.startDeviceCodeSignIn() }
            let userCode = try #require(await emulator.nextDeviceCode())
            #expect(await emulator.approve(userCode: userCode))
            await gate.release()
            try await signIn.value
            var seen: [ChappieDeviceLinkState] = []
            while let snapshot = await updates.next() {
                if seen.last != snapshot.deviceLinkState { seen.append(snapshot.deviceLinkState) }
                if snapshot.state == .signedIn { break }
            }
            #expect(seen.first == .idle)
            #expect(seen.contains(.requestingCode))
            #expect(seen.contains { if case .awaitingApproval(let code) = $0 { code.userCode == userCode } else { false } })
            #expect(seen.contains(.exchangingTokens))
            #expect(session.deviceLinkState == .linked)
            #expect(session.accountInfo?.email == "user@example.com")
        }
    }

    @Test("a denied code fails with deviceCodeDenied and leaves the user signed out")
    func denied() async throws {
        try await ChappieTestEmulator.with(.init(pollingIntervalSeconds: 1, autoApproveAfterPolls: nil)) { emulator, configuration in
            let gate = SleepGate()
            let session = ChappieAuthSession(configuration: configuration, timeSource: gate.timeSource)
            let signIn = Task { try await session.startDeviceCodeSignIn() }
            let userCode = try #require(await emulator.nextDeviceCode())
            await emulator.deny(userCode: userCode)
            await gate.release()
            await #expect(throws: ChappieAuthError.deviceCodeDenied) { try await signIn.value }
            #expect(session.state == .signedOut)
            #expect(session.lastError == .deviceCodeDenied)
            #expect(session.deviceLinkState == .failed(.deviceCodeDenied))
        }
    }

    @Test("an expired code ends with deviceCodeExpired and the expired link state")
    func expired() async throws {
        try await ChappieTestEmulator.with(.init(pollingIntervalSeconds: 1, autoApproveAfterPolls: nil)) { emulator, configuration in
            let gate = SleepGate()
            let session = ChappieAuthSession(configuration: configuration, timeSource: gate.timeSource)
            let signIn = Task { try await session.startDeviceCodeSignIn() }
            let userCode = try #require(await emulator.nextDeviceCode())
            await emulator.expire(userCode: userCode)
            await gate.release()
            await #expect(throws: ChappieAuthError.deviceCodeExpired) { try await signIn.value }
            #expect(session.deviceLinkState == .expired)
        }
    }

    @Test("cancelSignIn stops polling and a second concurrent sign-in is refused")
    func cancelAndInProgress() async throws {
        try await ChappieTestEmulator.with(.init(pollingIntervalSeconds: 1, autoApproveAfterPolls: nil)) { emulator, configuration in
            let session = ChappieAuthSession(configuration: configuration)
            let signIn = Task { try await session.startDeviceCodeSignIn() }
            _ = await emulator.nextDeviceCode()
            await #expect(throws: ChappieAuthError.signInInProgress) { try await session.startDeviceCodeSignIn() }
            session.cancelSignIn()
            await #expect(throws: ChappieAuthError.cancelled) { try await signIn.value }
            #expect(session.state == .signedOut)
        }
    }

    @Test("signOut revokes the refresh token and deletes only this account's credential")
    func signOut() async throws {
        try await ChappieTestEmulator.with { emulator, configuration in
            var other = configuration
            other.keychainAccount = "other"
            try await ChappieTestEmulator.signIn(configuration)
            try await ChappieTestEmulator.signIn(other)
            let session = ChappieAuthSession(configuration: configuration)
            await session.reload()
            try await session.signOut()
            #expect(session.state == .signedOut)
            #expect(try await configuration.credentialStore.loadCredential(for: configuration.credentialKey) == nil)
            #expect(try await configuration.credentialStore.loadCredential(for: other.credentialKey) != nil)
            let revokes = await emulator.recordedRequests().filter { $0.path == "/oauth/revoke" }
            #expect(revokes.count == 1)
            let body = try ChappieJSONValue(jsonData: revokes[0].body)
            #expect(body["token_type_hint"] == "refresh_token")
            #expect(body["client_id"] == "app_EMoamEEZ73f0CkXaXp7hrann")
        }
    }

    @Test("a corrupt credential file reads as signed out with a clear error, and a new sign-in replaces it")
    func corruptStore() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "chappie-corrupt-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await ChappieTestEmulator.with(configure: { $0.credentialStore = ChappieFileCredentialStore(directory: folder) }) { _, configuration in
            let store = ChappieFileCredentialStore(directory: folder)
            try await store.saveCredential(ChappieAuthFixtures.credential(), for: configuration.credentialKey)
            try Data("garbage".utf8).write(to: store.fileURL(for: configuration.credentialKey))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: store.fileURL(for: configuration.credentialKey).path)
            let session = ChappieAuthSession(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            await session.reload()
            #expect(session.state == .signedOut)
            guard case .credentialStore(let message) = session.lastError else { Issue.record("lastError: \(String(describing: session.lastError))"); return }
            #expect(message.contains("unreadable"))
            try await session.startDeviceCodeSignIn()
            #expect(session.state == .signedIn)
        }
    }
}
