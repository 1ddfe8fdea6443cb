#if os(Linux)
import ChappieSDKTesting
import ChappieTestSupport
import Foundation
import Testing
@testable import ChappieCore

/// True when `scripts/with-secret-service` started a D-Bus session with an unlocked keyring.
private let secretServiceRunning = ProcessInfo.processInfo.environment["CHAPPIE_SECRET_SERVICE_TESTS"] == "1"
/// Set only in the child process that the no-D-Bus test starts; names the file to report into.
private let childReportPath = ProcessInfo.processInfo.environment["CHAPPIE_SECRET_SERVICE_CHILD_REPORT"]

@Suite("Secret Service credential store")
struct SecretServiceCredentialStoreTests {
    /// A slot no other run uses, so parallel runs and leftovers never collide.
    let key = ChappieCredentialKey(service: "com.chappie.sdk.tests", account: "run-\(UUID().uuidString)")

    @Test("the hand-made SecretSchema matches the C layout of libsecret 0.20 on LP64")
    func schemaLayout() {
        // Values printed by offsetof/sizeof against /usr/include/libsecret-1/libsecret/secret-schema.h.
        #expect(SecretSchemaLayout.flagsOffset == 8)
        #expect(SecretSchemaLayout.attributesOffset == 16)
        #expect(SecretSchemaLayout.attributeStride == 16)
        #expect(SecretSchemaLayout.attributeTypeOffset == 8)
        #expect(SecretSchemaLayout.reservedOffset == 528)
        #expect(SecretSchemaLayout.firstReservedPointerOffset == 536)
        #expect(SecretSchemaLayout.size == 592)
    }

    @Test("without libsecret every call fails with a clear unavailable error")
    func missingLibrary() async throws {
        // given
        let store = ChappieSecretServiceCredentialStore(libraryNames: (secret: "libsecret-missing-for-test.so.0", glib: "libglib-2.0.so.0"))
        #expect(!store.isLibraryAvailable)
        // when
        let load = await #expect(throws: ChappieCredentialStoreError.self) { try await store.loadCredential(for: key) }
        let save = await #expect(throws: ChappieCredentialStoreError.self) {
            try await store.saveCredential(ChappieAuthFixtures.credential(), for: key)
        }
        let delete = await #expect(throws: ChappieCredentialStoreError.self) { try await store.deleteCredential(for: key) }
        // then
        for error in [load, save, delete] {
            guard case .unavailable(let message)? = error else { Issue.record("not unavailable: \(String(describing: error))"); continue }
            #expect(message.contains("libsecret is not installed"))
            #expect(message.contains("libsecret-missing-for-test.so.0"))
        }
    }

    @Test("store, read, replace and delete a credential in a real keyring", .enabled(if: secretServiceRunning))
    func realKeyringRoundTrip() async throws {
        // given
        let store = ChappieSecretServiceCredentialStore()
        let other = ChappieCredentialKey(service: key.service, account: key.account + "-other")
        let first = ChappieAuthFixtures.credential(email: "first@example.com", accountID: "acct-first")
        let second = ChappieAuthFixtures.credential(email: "second@example.com", accountID: "acct-second")
        #expect(try await store.loadCredential(for: key) == nil)
        // when / then: store and read back
        try await store.saveCredential(first, for: key)
        #expect(try await store.loadCredential(for: key) == first)
        // replace: one item per slot, the newest wins
        try await store.saveCredential(second, for: key)
        #expect(try await store.loadCredential(for: key) == second)
        // another slot is independent
        try await store.saveCredential(first, for: other)
        #expect(try await store.loadCredential(for: other) == first)
        // a fresh store value finds the same items
        #expect(try await ChappieSecretServiceCredentialStore().loadCredential(for: key) == second)
        // delete removes only this slot, and deleting twice is fine
        try await store.deleteCredential(for: key)
        try await store.deleteCredential(for: key)
        #expect(try await store.loadCredential(for: key) == nil)
        #expect(try await store.loadCredential(for: other) == first)
        try await store.deleteCredential(for: other)
        #expect(try await store.loadCredential(for: other) == nil)
    }

    @Test("other Secret Service clients find the item by schema, service and account",
          .enabled(if: secretServiceRunning && FileManager.default.isExecutableFile(atPath: "/usr/bin/secret-tool")))
    func visibleToSecretTool() async throws {
        // given
        let store = ChappieSecretServiceCredentialStore()
        let credential = ChappieAuthFixtures.credential()
        try await store.saveCredential(credential, for: key)
        // when
        let lookup = try await TestProcess("/usr/bin/secret-tool", ["lookup", "xdg:schema", ChappieSecretServiceCredentialStore.defaultSchemaName,
                                                                   "service", key.service, "account", key.account]).wait()
        let data = Data(lookup.stdout.utf8)
        // then
        #expect(lookup.status == 0)
        #expect(try JSONDecoder().decode(ChappieCredential.self, from: data) == credential)
        try await store.deleteCredential(for: key)
    }

    @Test("a schema name keeps items apart", .enabled(if: secretServiceRunning))
    func schemasAreSeparate() async throws {
        let store = ChappieSecretServiceCredentialStore()
        let foreign = ChappieSecretServiceCredentialStore(schemaName: "com.chappie.sdk.tests.Foreign")
        #expect(store.identity != foreign.identity)
        try await store.saveCredential(ChappieAuthFixtures.credential(), for: key)
        #expect(try await foreign.loadCredential(for: key) == nil)
        try await foreign.deleteCredential(for: key)
        #expect(try await store.loadCredential(for: key) != nil)
        try await store.deleteCredential(for: key)
    }

    @Test("a device-code sign-in through ChappieConfiguration lands in the keyring and sign-out removes it",
          .enabled(if: secretServiceRunning))
    @MainActor
    func configurationUsesTheKeyring() async throws {
        try await ChappieTestEmulator.with(configure: {
            $0.credentialStore = ChappieSecretServiceCredentialStore()
            $0.keychainService = key.service
            $0.keychainAccount = key.account
        }) { _, configuration in
            // given
            let time = ChappieVirtualTime()
            let session = ChappieAuthSession(configuration: configuration, timeSource: time.timeSource)
            // when
            try await session.startDeviceCodeSignIn()
            // then
            // (the emulator is another issuer, so the slot's service is qualified by it)
            let stored = try await ChappieSecretServiceCredentialStore().loadCredential(for: configuration.credentialKey)
            #expect(stored?.accountID != nil)
            try await session.signOut()
            #expect(try await ChappieSecretServiceCredentialStore().loadCredential(for: configuration.credentialKey) == nil)
        }
    }

    @Test("with no D-Bus session the store fails with a clear error instead of crashing")
    func noSessionBus() async throws {
        // The session bus connection is process-wide in GLib, so the check runs in a child process
        // (this test binary, filtered to `noSecretServiceChild`) whose bus address points nowhere.
        let lines = try await Self.runChild(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/chappie-no-bus"])
        #expect(lines.count == 3)
        for line in lines {
            #expect(line.hasPrefix("unavailable: "))
            #expect(line.contains("Secret Service: Could not connect") || line.contains("libsecret is not installed"))
            #expect(!line.contains("rt_fixture_"))
        }
    }

    @Test("on a D-Bus session with no Secret Service the store fails with a clear error",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-run-session")))
    func busWithoutSecretService() async throws {
        // given: a private session bus that can activate no service at all
        let folder = FileManager.default.temporaryDirectory.appending(path: "chappie-bare-bus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appending(path: "services"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appending(path: "session.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:tmpdir=\(folder.path)</listen>
              <servicedir>\(folder.appending(path: "services").path)</servicedir>
              <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
            </busconfig>
            """.write(to: config, atomically: true, encoding: .utf8)
        // when
        defer { Self.stopProcesses(mentioning: folder.path) }
        let lines = try await Self.runChild(environment: ["DBUS_SESSION_BUS_ADDRESS": nil],
                                      wrapper: ["/usr/bin/dbus-run-session", "--config-file=\(config.path)", "--"])
        // then
        #expect(lines.count == 3)
        for line in lines {
            #expect(line.hasPrefix("unavailable: "))
            #expect(line.contains("org.freedesktop.secrets") || line.contains("libsecret is not installed"))
        }
    }

    /// Kills every process whose command line mentions `text`. Started through Foundation's
    /// `Process` from a thread that blocks signals, dbus-run-session and its dbus-daemon inherit
    /// that signal mask, so the daemon never sees the SIGTERM that should end it with the child and
    /// outlives the test; its `--config-file` names this test's folder, so it is found by that.
    private static func stopProcesses(mentioning text: String) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return }
        for pid in entries.compactMap(Int32.init) where pid != getpid() {
            guard let commandLine = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { continue }
            if String(decoding: commandLine, as: UTF8.self).contains(text) { kill(pid, SIGKILL) }
        }
    }

    /// Runs `noSecretServiceChild` in a child copy of this test binary, with `environment` changes
    /// and an optional wrapper command, and returns the lines it reported.
    private static func runChild(environment changes: [String: String?], wrapper: [String] = []) async throws -> [String] {
        let report = FileManager.default.temporaryDirectory.appending(path: "chappie-no-secret-service-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: report) }
        let testBinary = CommandLine.arguments[0]
        let command = wrapper + [testBinary, "--testing-library", "swift-testing",
                                 "--filter", "SecretServiceCredentialStoreTests/noSecretServiceChild"]
        var environment: [String: String?] = ["DISPLAY": nil, "CHAPPIE_SECRET_SERVICE_TESTS": nil, "CHAPPIE_SECRET_SERVICE_CHILD_REPORT": report.path]
        for (name, value) in changes { environment[name] = value }
        let child = try await TestProcess(command[0], Array(command.dropFirst()), environment: environment, output: .discard, error: .discard).wait()
        #expect(!child.killedBySignal)
        #expect(child.status == 0)
        return try String(contentsOf: report, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test("child process of the no-Secret-Service tests", .enabled(if: childReportPath != nil))
    func noSecretServiceChild() async throws {
        let store = ChappieSecretServiceCredentialStore()
        let credential = ChappieAuthFixtures.credential()
        var lines: [String] = []
        let attempts: [@Sendable () async throws -> Void] = [
            { _ = try await store.loadCredential(for: key) },
            { try await store.saveCredential(credential, for: key) },
            { try await store.deleteCredential(for: key) },
        ]
        for attempt in attempts {
            do {
                try await attempt()
                lines.append("succeeded unexpectedly")
            } catch let error as ChappieCredentialStoreError {
                if case .unavailable(let message) = error { lines.append("unavailable: \(message)") } else { lines.append("other: \(error)") }
            } catch {
                lines.append("foreign error: \(type(of: error))")
            }
        }
        try lines.joined(separator: "\n").write(toFile: try #require(childReportPath), atomically: true, encoding: .utf8)
    }
}
#endif
