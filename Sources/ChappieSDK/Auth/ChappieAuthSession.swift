import Foundation
#if canImport(Combine)
import Combine
#endif

/// Signs the user in with the ChatGPT device-code flow and reports the sign-in state.
///
/// It reads the credential store in its initializer when the store can read synchronously (the
/// Keychain on Apple platforms, the file store on Linux, ``ChappieInMemoryCredentialStore``), so a returning user is
/// `.signedIn` (or `.reauthenticationRequired`, when the last renewal was refused) before a
/// SwiftUI view's first frame. With a store that reads only asynchronously (the Secret Service
/// store on Linux, a custom store) ``state`` is ``ChappieAuthState/restoring`` until the
/// read ends, never `.signedOut` for a user who is signed in; ``reload()`` waits for it.
///
/// It never exposes a token: only ``state``, ``deviceLinkState``, ``accountInfo`` and
/// ``lastError``. Build the ``ChappieClient`` from the same ``ChappieConfiguration`` so both use
/// the same credential.
@MainActor
public final class ChappieAuthSession {
    // The four observable values: `@Published` on Apple platforms (Combine fires
    // `objectWillChange` before each set, and `$state` & co. are publishers, as SwiftUI and the
    // published docs expect); plain properties where Combine is absent. Either way each change is
    // sent to ``updates`` after it is stored.
    #if canImport(Combine)
    /// The sign-in lifecycle stage.
    @Published public private(set) var state: ChappieAuthState = .restoring { didSet { if state != oldValue { emit() } } }
    /// Progress of the device-code exchange.
    @Published public private(set) var deviceLinkState: ChappieDeviceLinkState = .idle {
        didSet { if deviceLinkState != oldValue { emit() } }
    }
    /// Who is signed in, once signed in.
    @Published public private(set) var accountInfo: ChappieAccountInfo? = nil { didSet { if accountInfo != oldValue { emit() } } }
    /// The most recent failure, or nil.
    @Published public private(set) var lastError: ChappieAuthError? = nil { didSet { if lastError != oldValue { emit() } } }
    #else
    /// The sign-in lifecycle stage.
    public private(set) var state: ChappieAuthState = .restoring { didSet { if state != oldValue { emit() } } }
    /// Progress of the device-code exchange.
    public private(set) var deviceLinkState: ChappieDeviceLinkState = .idle { didSet { if deviceLinkState != oldValue { emit() } } }
    /// Who is signed in, once signed in.
    public private(set) var accountInfo: ChappieAccountInfo? = nil { didSet { if accountInfo != oldValue { emit() } } }
    /// The most recent failure, or nil.
    public private(set) var lastError: ChappieAuthError? = nil { didSet { if lastError != oldValue { emit() } } }
    #endif

    /// The configuration this session signs in for.
    public nonisolated let configuration: ChappieConfiguration
    private let manager: CredentialManager
    private let credentialContext: CredentialContext
    private let flow: DeviceCodeFlow
    private var signInTask: Task<Void, any Error>?
    private var observers: [UUID: AsyncStream<ChappieAuthSessionSnapshot>.Continuation] = [:]
    private var statusTask: Task<Void, Never>?
    private var initialLoad: Task<Void, Never>?

    /// Creates a session; prefer ``Chappie/authSession(configuration:)``.
    public convenience init(configuration: ChappieConfiguration = ChappieConfiguration()) {
        self.init(configuration: configuration, timeSource: .system)
    }

    /// Creates a session with a custom time source (tests use a virtual clock so polling never sleeps).
    public convenience init(configuration: ChappieConfiguration, timeSource: ChappieTimeSource) {
        self.init(configuration: configuration, transport: HTTPTransports.platformDefault(), timeSource: timeSource)
    }

    init(configuration: ChappieConfiguration, transport: any HTTPTransport, timeSource: ChappieTimeSource) {
        self.configuration = configuration
        manager = CredentialManager.shared(for: configuration)
        credentialContext = CredentialContext(configuration: configuration, transport: transport, time: timeSource)
        flow = DeviceCodeFlow(endpoints: configuration.endpoints, transport: transport, time: timeSource)
        // A returning user is known before the first frame when the store reads synchronously;
        // otherwise (or when that read fails, e.g. a locked device) the state stays `.restoring`
        // until the manager's first status arrives.
        if let status = Self.synchronousStatus(of: configuration) {
            // Nobody observes the session yet: nothing is announced.
            switch status {
            case .signedIn(let info):
                state = .signedIn
                accountInfo = info
            case .signedOut:
                state = .signedOut
            case .reauthenticationRequired(let reason):
                state = .reauthenticationRequired
                lastError = .reauthenticationRequired(reason)
            }
        }
        initialLoad = Task { [weak self] in await self?.observeManager() }
    }

    /// The stored credential's status read without suspending, or nil when the store cannot
    /// (it reads only asynchronously, or the read failed).
    private static func synchronousStatus(of configuration: ChappieConfiguration) -> CredentialStatus? {
        guard case .loaded(let credential)? = try? configuration.credentialStore.loadCredentialSynchronously(for: configuration.credentialKey)
        else { return nil }
        return CredentialStatus(stored: credential)
    }

    deinit {
        statusTask?.cancel()
        signInTask?.cancel()
        for observer in observers.values { observer.finish() }
    }

    /// Waits until the stored credential has been read (done automatically at creation) and
    /// re-reads it, e.g. after another process signed in.
    public func reload() async {
        await initialLoad?.value
        do {
            apply(try await manager.reload())
        } catch let error as ChappieClientError {
            if case .credentialStore(let reason) = error { lastError = .credentialStore(reason) }
            else { lastError = .credentialStore(error.errorDescription ?? "unreadable") }
            state = .signedOut
        } catch {
            state = .signedOut
        }
    }

    /// Changes of state, device-link state, account info and last error, starting with the current values.
    public var updates: AsyncStream<ChappieAuthSessionSnapshot> {
        let (stream, continuation) = AsyncStream<ChappieAuthSessionSnapshot>.makeStream(bufferingPolicy: .bufferingNewest(32))
        let id = UUID()
        observers[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { @MainActor in self?.observers[id] = nil } }
        continuation.yield(snapshot)
        return stream
    }

    /// The current values as one value.
    public var snapshot: ChappieAuthSessionSnapshot {
        ChappieAuthSessionSnapshot(state: state, deviceLinkState: deviceLinkState, accountInfo: accountInfo, lastError: lastError)
    }

    /// Runs the device-code sign-in: requests a user code (``deviceLinkState`` becomes
    /// `.awaitingApproval` with it, and `onDeviceCode` is called), polls until the user approves
    /// at the verification URL, exchanges the code and stores the credential.
    ///
    /// Throws ``ChappieAuthError`` (also kept in ``lastError``): `.deviceCodeExpired`,
    /// `.deviceCodeDenied`, `.deadlineExceeded` (15 minutes), `.network`, `.cancelled`, ….
    public func startDeviceCodeSignIn(onDeviceCode: (@MainActor @Sendable (ChappieDeviceCode) -> Void)? = nil) async throws {
        guard signInTask == nil else { throw ChappieAuthError.signInInProgress }
        let previousState = state
        state = .signingIn
        lastError = nil
        deviceLinkState = .requestingCode
        let task = Task { @MainActor [flow, manager] in
            let grant = try await flow.requestCode()
            self.deviceLinkState = .awaitingApproval(grant.code)
            onDeviceCode?(grant.code)
            let credential = try await flow.awaitCredential(for: grant)
            try Task.checkCancellation()
            self.deviceLinkState = .exchangingTokens
            try await manager.adopt(credential)
        }
        signInTask = task
        defer { signInTask = nil }
        do {
            try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
            accountInfo = try? await manager.accountInfo()
            deviceLinkState = .linked
            state = .signedIn
        } catch {
            let authError = Self.authError(from: error)
            lastError = authError
            deviceLinkState = authError == .deviceCodeExpired || authError == .deadlineExceeded ? .expired : .failed(authError)
            switch previousState {
            case .signingIn: state = .signedOut
            // The first read may have ended while signing in (its status was not applied then).
            case .restoring: state = Self.state(for: await manager.currentStatus())
            default: state = previousState
            }
            throw authError
        }
    }

    /// Stops a running sign-in; ``startDeviceCodeSignIn(onDeviceCode:)`` then throws `.cancelled`.
    public func cancelSignIn() {
        signInTask?.cancel()
    }

    /// Signs out: revokes the refresh token best-effort and deletes this configuration's
    /// credential only (other accounts are untouched). Throws ``ChappieAuthError/credentialStore(_:)``
    /// when the credential cannot be deleted.
    public func signOut() async throws {
        cancelSignIn()
        do {
            try await manager.signOut(credentialContext)
        } catch let error as ChappieAuthError {
            lastError = error
            throw error
        }
        accountInfo = nil
        deviceLinkState = .idle
        state = .signedOut
    }

    private func observeManager() async {
        let updates = await manager.statusUpdates()
        statusTask = Task { [weak self] in
            for await status in updates {
                guard let self else { return }
                self.apply(status)
            }
        }
    }

    private static func state(for status: CredentialStatus) -> ChappieAuthState {
        switch status {
        case .signedIn: .signedIn
        case .signedOut: .signedOut
        case .reauthenticationRequired: .reauthenticationRequired
        }
    }

    private func apply(_ status: CredentialStatus) {
        guard signInTask == nil else { return }
        switch status {
        case .signedIn(let info):
            accountInfo = info
            state = .signedIn
        case .signedOut:
            accountInfo = nil
            state = .signedOut
        case .reauthenticationRequired(let reason):
            state = .reauthenticationRequired
            lastError = .reauthenticationRequired(reason)
        }
    }

    /// Sends the new values to every ``updates`` stream, after a change was stored.
    private func emit() {
        let current = snapshot
        for observer in observers.values { observer.yield(current) }
    }

    private static func authError(from error: any Error) -> ChappieAuthError {
        switch error {
        case let error as ChappieAuthError: error
        case is CancellationError: .cancelled
        case let error as ChappieClientError: .credentialStore(error.errorDescription ?? "failed")
        default: .network(Redaction.clean("\(error)"))
        }
    }
}

#if canImport(Combine)
/// On Apple platforms a session drives SwiftUI directly: its four `@Published` properties,
/// ``ChappieAuthSession/state``, ``ChappieAuthSession/deviceLinkState``,
/// ``ChappieAuthSession/accountInfo`` and ``ChappieAuthSession/lastError``, fire
/// `objectWillChange` before each change, so a view that holds the session in `@StateObject` or
/// `@ObservedObject` re-renders with the new values, and `$state` & co. are Combine publishers.
extension ChappieAuthSession: ObservableObject {}
#endif

/// The observable values of a ``ChappieAuthSession`` at one moment.
public struct ChappieAuthSessionSnapshot: Sendable, Equatable {
    /// The sign-in lifecycle stage.
    public var state: ChappieAuthState
    /// Device-code progress.
    public var deviceLinkState: ChappieDeviceLinkState
    /// Who is signed in.
    public var accountInfo: ChappieAccountInfo?
    /// The latest failure.
    public var lastError: ChappieAuthError?
}
