import ChappieSDK
import ChappieSDKTesting
import Testing

/// Sign-in as an app sees it, through the public API and ChappieSDKTesting only.
@Suite("App tests: sign-in")
struct SignInAppTests {
    @Test("withSignedIn hands over a signed-in session with the emulator's account")
    func signedIn() async throws {
        try await ChappieTestEmulator.withSignedIn { app in
            let snapshot = await app.session.snapshot
            #expect(snapshot.state == .signedIn)
            #expect(snapshot.deviceLinkState == .linked)
            #expect(snapshot.lastError == nil)
            #expect(snapshot.accountInfo?.email?.isEmpty == false)
            #expect(snapshot.accountInfo?.accountID != nil)
            let clientAccount = try await app.client.accountInfo()
            #expect(clientAccount.accountID == snapshot.accountInfo?.accountID)
        }
    }

    @Test("the updates stream walks signed out, signing in, awaiting approval, signed in; onDeviceCode gets the code")
    @MainActor
    func updatesDuringSignIn() async throws {
        try await ChappieTestEmulator.with { _, configuration in
            // given
            let time = ChappieVirtualTime()
            let session = ChappieAuthSession(configuration: configuration, timeSource: time.timeSource)
            await session.reload()
            var updates = session.updates.makeAsyncIterator()
            #expect(await updates.next()?.state == .signedOut)
            var codes: [ChappieDeviceCode] = []
            // when
            try await session.startDeviceCodeSignIn { code in codes.append(code) }
            // then
            var seen: [ChappieAuthSessionSnapshot] = []
            while let update = await updates.next() {
                seen.append(update)
                if update.state == .signedIn { break }
            }
            #expect(seen.first?.state == .signingIn)
            #expect(seen.contains { if case .awaitingApproval(let code) = $0.deviceLinkState { code == codes.first } else { false } })
            #expect(seen.last?.deviceLinkState == .linked)
            #expect(codes.count == 1)
            #expect(codes.first?.userCode.isEmpty == false)
        }
    }

    @Test("a denied sign-in fails with deviceCodeDenied and leaves the user signed out")
    @MainActor
    func deniedSignIn() async throws {
        try await ChappieTestEmulator.with(.init(pollingIntervalSeconds: 1, autoApproveAfterPolls: nil)) { emulator, configuration in
            // given: real time (1 s poll interval), so polling waits for the denial instead of
            // spinning through virtual time
            let session = ChappieAuthSession(configuration: configuration, timeSource: .system)
            let denial = Task { await emulator.denyNextSignIn() }
            // when
            let error = await #expect(throws: ChappieAuthError.self) { try await session.startDeviceCodeSignIn() }
            // then
            #expect(error == .deviceCodeDenied)
            #expect(await denial.value != nil)
            #expect(session.state == .signedOut)
            #expect(session.lastError == .deviceCodeDenied)
        }
    }

    @Test("a seeded credential signs the session in without the device flow")
    @MainActor
    func seededCredential() async throws {
        // given
        let configuration = try await ChappieAuthFixtures.signedIn()
        // when
        let session = ChappieAuthSession(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
        await session.reload()
        // then
        #expect(session.state == .signedIn)
        #expect(session.accountInfo?.email == "tester@example.com")
        #expect(session.accountInfo?.plan?.rawValue == "plus")
    }

    @Test("signing out forgets the credential: the client then asks for a sign-in")
    func signOut() async throws {
        try await ChappieTestEmulator.withSignedIn { app in
            // when
            try await app.session.signOut()
            // then
            #expect(await app.session.state == .signedOut)
            let error = await #expect(throws: ChappieClientError.self) { try await app.client.send("hello?") }
            #expect(error?.requiresReauthentication == true)
        }
    }
}
