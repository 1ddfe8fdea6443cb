import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@_spi(ChappieTesting) @testable import ChappieCore

private let endpoints = ChappieEndpoints(authIssuer: URL(string: "https://auth.test")!, backend: URL(string: "https://backend.test/backend-api")!)
private let key = ChappieCredentialKey(service: "owner-test", account: "default")

private func owner(stored: ChappieCredential) async throws -> (CredentialManager, CredentialContext, ChappieInMemoryCredentialStore, GatedTokenEndpoint) {
    let store = ChappieInMemoryCredentialStore()
    try await store.saveCredential(stored, for: key)
    let gate = GatedTokenEndpoint()
    let transport = ScriptedTransport { request, _ in await gate.handle(request) }
    let context = CredentialContext(tokenEndpoint: TokenEndpoint(endpoints: endpoints, transport: transport), time: .system)
    return (CredentialManager(store: store, key: key), context, store, gate)
}

/// An in-memory store whose delete waits for the test.
private actor SlowDeleteStore: ChappieCredentialStore {
    private var credentials: [ChappieCredentialKey: ChappieCredential] = [:]
    private var started: CheckedContinuation<Void, Never>?
    private var didStart = false
    private var gate: CheckedContinuation<Void, Never>?

    nonisolated var identity: String { "slow-delete-test" }

    func loadCredential(for key: ChappieCredentialKey) async throws -> ChappieCredential? { credentials[key] }
    func saveCredential(_ credential: ChappieCredential, for key: ChappieCredentialKey) async throws { credentials[key] = credential }
    func deleteCredential(for key: ChappieCredentialKey) async throws {
        didStart = true
        started?.resume()
        await withCheckedContinuation { gate = $0 }
        credentials[key] = nil
    }

    /// Returns once a delete has started (and waits).
    func deleteStarted() async {
        if didStart { return }
        await withCheckedContinuation { started = $0 }
    }

    /// Lets the waiting delete finish.
    func finishDelete() {
        gate?.resume()
        gate = nil
    }
}

@Suite("Credential owner")
struct CredentialOwnerTests {
    @Test("a refresh flight cut short by a new sign-in never clears the newer flight: no third refresh")
    func flightIDs() async throws {
        let (owner, context, _, gate) = try await owner(stored: ChappieAuthFixtures.credential(expiresIn: -60))
        let first = Task { try await owner.authorization(context) }
        await gate.nextArrival()
        try await owner.adopt(ChappieAuthFixtures.credential(expiresIn: -60))  // a new sign-in, also expired
        let second = Task { try await owner.authorization(context) }
        await gate.nextArrival()
        await gate.releaseOne()  // the first, cut-short flight answers
        _ = try? await first.value
        let third = Task { try await owner.authorization(context) }  // must join the second flight
        await gate.releaseOne()
        let (secondToken, thirdToken) = (try await second.value.accessToken, try await third.value.accessToken)
        #expect(secondToken == thirdToken)
        #expect(await gate.refreshCalls == 2)
    }

    @Test("sign-out wins over a refresh in flight: the new tokens are dropped, revoked, never saved")
    func signOutWins() async throws {
        let stored = ChappieAuthFixtures.credential(expiresIn: -60)
        let (owner, context, store, gate) = try await owner(stored: stored)
        let request = Task { try await owner.authorization(context) }
        await gate.nextArrival()
        try await owner.signOut(context)
        await gate.releaseOne()
        await #expect(throws: ChappieClientError.missingCredential) { _ = try await request.value }
        #expect(try await store.loadCredential(for: key) == nil)
        #expect(await gate.revokedTokens.contains("rt_new_1"))
    }

    @Test("callers that joined a refresh cut short by sign-out are told the slot is signed out, not that they were cancelled")
    func joinersOfCutFlight() async throws {
        let (owner, context, _, gate) = try await owner(stored: ChappieAuthFixtures.credential(expiresIn: -60))
        let starter = Task { try await owner.authorization(context) }
        await gate.nextArrival()
        let joiner = Task { try await owner.authorization(context) }
        while await owner.flightJoins < 1 { await Task.yield() }  // the joiner waits on the flight
        try await owner.signOut(context)
        await gate.releaseOne()
        await #expect(throws: ChappieClientError.missingCredential) { _ = try await joiner.value }
        await #expect(throws: ChappieClientError.missingCredential) { _ = try await starter.value }
    }

    @Test("a request made while sign-out deletes the credential never gets the signed-out token")
    func requestDuringSignOut() async throws {
        let store = SlowDeleteStore()
        try await store.saveCredential(ChappieAuthFixtures.credential(expiresIn: 3600), for: key)
        let owner = CredentialManager(store: store, key: key)
        let context = CredentialContext(tokenEndpoint: TokenEndpoint(endpoints: endpoints, transport: ScriptedTransport(replies: [.json(200, "{}")])),
                                        time: .system)
        _ = try await owner.authorization(context)
        let signOut = Task { try await owner.signOut(context) }
        await store.deleteStarted()
        await #expect(throws: ChappieClientError.missingCredential) { _ = try await owner.authorization(context) }
        await store.finishDelete()
        _ = try await signOut.value
    }

    @Test("an owner is released once no session or client uses it")
    func released() async throws {
        let configuration = try await ChappieAuthFixtures.signedIn()
        weak var owner: CredentialManager?
        do {
            let client = ChappieClient(configuration: configuration)
            owner = CredentialManager.shared(for: configuration)
            #expect(owner === CredentialManager.shared(for: configuration))
            _ = client
        }
        #expect(owner == nil)
    }

    @Test("clients of one slot share the owner but not each other's clock")
    func noClockLeak() async throws {
        try await ChappieEmulator.with(.init(usagePercentPerResponse: 0)) { emulator in
            let tokens = await emulator.issueTokens()
            let configuration = try await ChappieAuthFixtures.signedIn(
                ChappieConfiguration(streamingTransportPolicy: .httpSSEOnly,
                                     endpoints: ChappieEndpoints(authIssuer: emulator.baseURL, backend: emulator.backendBaseURL)),
                credential: ChappieCredential(idToken: tokens.idToken, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
                                              expiresIn: 3600, obtainedAt: Date()))
            // The first client lives two hours ahead: to it the token has expired.
            let ahead = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime(start: Date().addingTimeInterval(7200)).timeSource)
            let now = ChappieClient(configuration: configuration)
            _ = try await now.usageLimits()
            #expect(await emulator.refreshGrantsServed == 0, "the second client used the first one's clock")
            _ = try await ahead.usageLimits()
            #expect(await emulator.refreshGrantsServed == 1)
        }
    }
}
