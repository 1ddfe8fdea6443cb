import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieCore

/// The threads of `ids` that still run in this process (`/proc/self/task/<id>`).
private func runningThreads(_ ids: [Int32]) -> [Int32] {
    ids.filter { FileManager.default.fileExists(atPath: "/proc/self/task/\($0)") }
}

/// A sign-in session's lifetime: ``ChappieAuthSession/shutdown()`` ends a running sign-in and the
/// session's threads, refuses later sign-ins and sign-outs, and keeps the saved sign-in.
@Suite("ChappieAuthSession lifetime", .timeLimit(.minutes(1)))
@MainActor
struct AuthSessionLifecycleTests {
    @Test("shutdown() stops the HTTP loop and leaves no thread of the session running; a second call returns too")
    func shutdownEndsThreads() async throws {
        try await ChappieTestEmulator.with { _, configuration in
            let session = ChappieAuthSession(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            try await session.startDeviceCodeSignIn()
            let threads = session.threadIDs
            #if os(Linux)
            // the libcurl loop
            #expect(threads.count >= 1)
            #endif
            #expect(runningThreads(threads) == threads)
            // when
            await session.shutdown()
            // then
            #expect(runningThreads(threads).isEmpty, "threads left: \(runningThreads(threads))")
            #expect(session.threadIDs.isEmpty)
            // and it is idempotent, also from two tasks at once
            async let first: Void = session.shutdown()
            async let second: Void = session.shutdown()
            _ = await (first, second)
            await session.shutdown()
        }
    }

    @Test("after shutdown() sign-ins and sign-outs throw sessionShutDown with nothing sent; the saved sign-in stays")
    func refusedAfterShutdown() async throws {
        try await ChappieTestEmulator.with { emulator, configuration in
            let session = ChappieAuthSession(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            try await session.startDeviceCodeSignIn()
            await session.shutdown()
            let requests = await emulator.recordedRequests().count
            await #expect(throws: ChappieAuthError.sessionShutDown) { try await session.startDeviceCodeSignIn() }
            await #expect(throws: ChappieAuthError.sessionShutDown) {
                try await session.signInWithChatGPT(appName: "Test", openURL: ChappieBrowserOpener { _ in Issue.record("opened a browser") })
            }
            await #expect(throws: ChappieAuthError.sessionShutDown) { try await session.signOut() }
            await #expect(throws: ChappieAuthError.sessionShutDown) { _ = try await session.signOutReportingRevocation() }
            #expect(await emulator.recordedRequests().count == requests, "nothing was sent")
            // the state stays readable and the credential saved
            #expect(session.state == .signedIn)
            let stored = try await configuration.credentialStore.loadCredential(for: configuration.credentialKey)
            #expect(stored != nil)
            // an updates stream holds the current values and ends
            var seen: [ChappieAuthSessionSnapshot] = []
            for await snapshot in session.updates { seen.append(snapshot) }
            #expect(seen == [session.snapshot])
            #expect(ChappieAuthError.sessionShutDown.recoverySuggestion == "Create a new sign-in session.")
        }
    }

    @Test("shutdown() cancels a running sign-in and waits for it: it throws cancelled, the updates stream ends")
    func shutdownCancelsSignIn() async throws {
        try await ChappieTestEmulator.with(.init(pollingIntervalSeconds: 1, autoApproveAfterPolls: nil)) { emulator, configuration in
            let gate = SleepGate()
            let session = ChappieAuthSession(configuration: configuration, timeSource: gate.timeSource)
            await session.reload()
            let updates = session.updates
            let signIn = Task { try await session.startDeviceCodeSignIn() }
            _ = try #require(await emulator.nextDeviceCode())
            // when
            let down = Task { await session.shutdown() }
            await gate.release()
            await down.value
            // then
            let outcome = await signIn.result
            #expect(throws: ChappieAuthError.cancelled) { try outcome.get() }
            #expect(session.state == .signedOut)
            for await _ in updates {}  // ends
            await #expect(throws: ChappieAuthError.sessionShutDown) { try await session.startDeviceCodeSignIn() }
        }
    }

    @Test("ChappieAuthSession.with shuts the session down when the body returns and when it throws")
    func scopedSession() async throws {
        struct Stop: Error {}
        try await ChappieTestEmulator.with { _, configuration in
            let time = ChappieVirtualTime()
            var kept: [ChappieAuthSession] = []
            let state = try await ChappieAuthSession.with(configuration: configuration, timeSource: time.timeSource) { session in
                kept.append(session)
                try await session.startDeviceCodeSignIn()
                return session.state
            }
            #expect(state == .signedIn)
            await #expect(throws: Stop.self) {
                try await ChappieAuthSession.with(configuration: configuration, timeSource: time.timeSource) { session in
                    kept.append(session)
                    throw Stop()
                }
            }
            for session in kept {
                #expect(runningThreads(session.threadIDs).isEmpty)
                await #expect(throws: ChappieAuthError.sessionShutDown) { try await session.signOut() }
            }
            // the credential signed in by the first session still serves a client
            try await ChappieClient.with(configuration: configuration) { client in
                _ = try await client.accountInfo()
            }
        }
    }
}
