import Foundation
#if canImport(Combine)
import Combine
#endif

/// Signs the user in with the ChatGPT device-code flow and reports the sign-in state.
///
/// It reads the credential store when created, so a returning user is already signed in once
/// ``reload()`` (started automatically) finishes. It never exposes a token: only ``state``,
/// ``deviceLinkState``, ``accountInfo`` and ``lastError``. Build the ``ChappieClient`` from the
/// same ``ChappieConfiguration`` so both use the same credential.
@MainActor
public final class ChappieAuthSession {
    // Each property announces a change twice: `objectWillChange` (Apple platforms) before the new
    // value is stored, as SwiftUI requires, and ``updates`` after it, with the new snapshot.

    /// The sign-in lifecycle stage.
    public private(set) var state: ChappieAuthState = .signedOut {
        willSet { if newValue != state { willChange() } }
        didSet { if state != oldValue { emit() } }
    }
    /// Progress of the device-code exchange.
    public private(set) var deviceLinkState: ChappieDeviceLinkState = .idle {
        willSet { if newValue != deviceLinkState { willChange() } }
        didSet { if deviceLinkState != oldValue { emit() } }
    }
    /// Who is signed in, once signed in.
    public private(set) var accountInfo: ChappieAccountInfo? {
        willSet { if newValue != accountInfo { willChange() } }
        didSet { if accountInfo != oldValue { emit() } }
    }
    /// The most recent failure, or nil.
    public private(set) var lastError: ChappieAuthError? {
        willSet { if newValue != lastError { willChange() } }
        didSet { if lastError != oldValue { emit() } }
    }

    /// The configuration this session signs in for.
    public nonisolated let configuration: ChappieConfiguration
    private let manager: CredentialManager
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
        self.init(configuration: configuration, transport: URLSessionHTTPTransport(), timeSource: timeSource)
    }

    init(configuration: ChappieConfiguration, transport: any HTTPTransport, timeSource: ChappieTimeSource) {
        self.configuration = configuration
        manager = CredentialManager.shared(for: configuration, transport: transport, time: timeSource)
        flow = DeviceCodeFlow(endpoints: configuration.endpoints, transport: transport, time: timeSource)
        initialLoad = Task { [weak self] in await self?.observeManager() }
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
            state = previousState == .signingIn ? .signedOut : previousState
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
            try await manager.signOut()
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

    /// Tells SwiftUI (through `ObservableObject`) that a property is about to change; a no-op
    /// where Combine is absent.
    private func willChange() {
        #if canImport(Combine)
        objectWillChange.send()
        #endif
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
/// On Apple platforms a session drives SwiftUI directly: `objectWillChange` fires before each change
/// of ``ChappieAuthSession/state``, ``ChappieAuthSession/deviceLinkState``,
/// ``ChappieAuthSession/accountInfo`` or ``ChappieAuthSession/lastError``, so a view that holds
/// the session in `@StateObject` or `@ObservedObject` re-renders with the new values.
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
