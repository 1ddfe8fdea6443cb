import ChappieSDK
import ChappieSDKTesting
import Foundation
import Testing

/// Where a sample of the published documentation (docs.chappiesdk.com) runs: a fresh emulator, an
/// account already signed in there (the `default` slot of an in-memory credential store), a
/// virtual clock for sign-ins, a scratch folder, and what the sample printed.
///
/// The samples in this target are the docs' code as close to verbatim as compiles: they call
/// `Chappie.client()`, `ChappieConfiguration(keychainAccount:)`, `print(…)` exactly as an app
/// would. Three stand-ins in this target make that safe and observable, and nothing else is
/// changed: ``Chappie`` (this target's) points every configuration a sample builds at the
/// emulator and the in-memory store (keeping its account, service, model, harness and policies),
/// `print` writes to ``output``, and ``currentUser`` / ``InventoryStore`` are the app objects the
/// docs assume.
final class DocsEnvironment: Sendable {
    /// The environment of the running test; samples reach it through the stand-ins.
    @TaskLocal static var current: DocsEnvironment?

    /// The emulator the samples talk to; tests script its replies.
    let emulator: ChappieEmulator
    /// The emulator's endpoints and the in-memory credential store every sample's configuration gets.
    let base: ChappieConfiguration
    /// The clock of the auth sessions the samples create: device-code polling never waits.
    let time = ChappieVirtualTime()
    /// What the sample printed.
    let output = DocsOutput()
    /// What the app's own stand-ins did (a confirmation dialog asked, …), kept apart from
    /// ``output`` because they run concurrently with the sample's loop.
    let appLog = DocsOutput()
    /// A folder for files the sample writes (the thread store), removed afterwards.
    let folder: URL

    private init(emulator: ChappieEmulator, base: ChappieConfiguration, folder: URL) {
        self.emulator = emulator
        self.base = base
        self.folder = folder
    }

    /// The running test's environment; a sample run outside ``run(_:)`` is a test bug.
    static var required: DocsEnvironment {
        guard let current else { preconditionFailure("a docs sample ran outside DocsEnvironment.run") }
        return current
    }

    /// Starts an emulator (`emulator`: its settings), signs the `default` account in, runs `body` with this environment
    /// current, and always shuts the emulator down and removes the scratch folder. Throws what
    /// the sign-in or `body` throws.
    static func run<Result: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        emulator emulatorConfiguration: ChappieEmulator.Configuration = .init(pollingIntervalSeconds: 1, autoApproveAfterPolls: 1),
        _ body: (DocsEnvironment) async throws -> Result
    ) async throws -> Result {
        try await ChappieTestEmulator.with(emulatorConfiguration) { emulator, configuration in
            let folder = FileManager.default.temporaryDirectory.appending(path: "docs-sample-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let environment = DocsEnvironment(emulator: emulator, base: configuration, folder: folder)
            if emulatorConfiguration.autoApproveAfterPolls == nil {
                // An emulator that never approves by itself: approve this one sign-in.
                async let approved = emulator.approveNextSignIn()
                try await ChappieTestEmulator.signIn(configuration, time: environment.time)
                _ = await approved
            } else {
                try await ChappieTestEmulator.signIn(configuration, time: environment.time)
            }
            return try await $current.withValue(environment) { try await body(environment) }
        }
    }

    /// `configuration` as the sample built it, talking to the emulator through the in-memory store.
    func redirect(_ configuration: ChappieConfiguration) -> ChappieConfiguration {
        var redirected = configuration
        redirected.endpoints = base.endpoints
        redirected.credentialStore = base.credentialStore
        return redirected
    }

    /// The requests the emulator received on the Responses endpoint (HTTP bodies and WebSocket
    /// `response.create` messages, warm-ups excluded), parsed, oldest first.
    func responsesRequests() async -> [ChappieJSONValue] {
        await emulator.recordedRequests()
            .filter { $0.path == "/backend-api/codex/responses" && !$0.body.isEmpty }
            .compactMap { try? ChappieJSONValue(jsonData: $0.body) }
            .filter { $0["generate"]?.boolValue != false }
    }
}

/// Text a sample printed, in order. Thread-safe: the text lives behind one `NSLock`, which makes
/// the `@unchecked Sendable` sound (a tool handler may print from the client's task).
final class DocsOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var printed = ""

    /// Appends `text`.
    func append(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        printed += text
    }

    /// Everything printed so far.
    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return printed
    }
}

/// The docs' samples print; in this target `print` goes to the running test's ``DocsOutput``
/// (standard output outside a test environment), so a test can check what a sample showed.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let text = items.map { "\($0)" }.joined(separator: separator) + terminator
    if let environment = DocsEnvironment.current {
        environment.output.append(text)
    } else {
        Swift.print(text, terminator: "")
    }
}
