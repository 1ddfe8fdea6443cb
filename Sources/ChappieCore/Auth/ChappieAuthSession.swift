import ChappieTransport
import Foundation
#if canImport(Combine)
import Combine
#endif

/// Signs the user in with ChatGPT and reports the sign-in state: with Sign in with ChatGPT
/// (``signInWithChatGPT(appName:enablePlanUsage:timeout:openURL:)``, OpenAI's program for
/// third-party apps) or with the device-code flow (``startDeviceCodeSignIn(onDeviceCode:)``).
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
///
/// When the app is done with it, ``shutdown()`` stops a running sign-in and the session's network
/// threads; ``with(configuration:timeSource:_:)`` scopes a session to a block and always shuts it
/// down.
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
    private let transport: any HTTPTransport
    private let timeSource: ChappieTimeSource
    private var signInTask: Task<Void, any Error>?
    private var observers: [UUID: AsyncStream<ChappieAuthSessionSnapshot>.Continuation] = [:]
    private var statusTask: Task<Void, Never>?
    private var initialLoad: Task<Void, Never>?
    /// The threads the session's transport started (on Linux the libcurl loop).
    private let threads: ThreadGroup
    /// The shutdown's work, set by the first ``shutdown()``.
    private var shutdownTask: Task<Void, Never>?

    /// Creates a session; prefer ``Chappie/authSession(configuration:)``.
    public convenience init(configuration: ChappieConfiguration = ChappieConfiguration()) {
        self.init(configuration: configuration, timeSource: .system)
    }

    /// Creates a session with a custom time source (tests use a virtual clock so polling never sleeps).
    public convenience init(configuration: ChappieConfiguration, timeSource: ChappieTimeSource) {
        let threads = ThreadGroup()
        let transport = ThreadGroup.current.withValue(threads) { HTTPTransports.platformDefault() }
        self.init(configuration: configuration, transport: transport, timeSource: timeSource, threads: threads)
    }

    init(configuration: ChappieConfiguration, transport: any HTTPTransport, timeSource: ChappieTimeSource,
         threads: ThreadGroup = ThreadGroup()) {
        self.configuration = configuration
        self.threads = threads
        manager = CredentialManager.shared(for: configuration)
        credentialContext = CredentialContext(configuration: configuration, transport: transport, time: timeSource)
        flow = DeviceCodeFlow(endpoints: configuration.endpoints, transport: transport, time: timeSource)
        self.transport = transport
        self.timeSource = timeSource
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

    // MARK: Lifetime

    /// Shuts the session down for good, and returns once it is down:
    /// - a running sign-in is cancelled and waited for (it throws ``ChappieAuthError/cancelled``);
    /// - later sign-ins and sign-outs throw ``ChappieAuthError/sessionShutDown`` at once, sending
    ///   nothing;
    /// - the HTTP transport stops, and every thread the session started (on Linux the libcurl
    ///   loop) has ended when it returns;
    /// - its ``updates`` streams finish.
    ///
    /// The saved sign-in is kept: ``state``, ``accountInfo`` and ``lastError`` stay readable (they
    /// no longer follow the credential store), and a ``ChappieClient`` of the same configuration
    /// keeps working. Safe to call more than once:
    /// later calls wait for the first one's work. It cannot be cancelled.
    public func shutdown() async {
        if shutdownTask == nil {
            let running = signInTask
            running?.cancel()
            statusTask?.cancel()
            statusTask = nil
            for observer in observers.values { observer.finish() }
            observers.removeAll()
            let transport = transport
            let threads = threads
            shutdownTask = Task.detached {
                _ = await running?.result
                await transport.shutdown()
                await threads.join()
            }
        }
        await shutdownTask?.value
    }

    /// Runs a session for the length of `body` and always shuts it down (``shutdown()``), whether
    /// `body` returns or throws:
    ///
    /// ```swift
    /// try await ChappieAuthSession.with(configuration: configuration) { session in
    ///     try await session.startDeviceCodeSignIn { code in print(code.userCode) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: what the session signs in for (see ``init(configuration:)``).
    ///   - timeSource: the clock its polling uses (tests pass a virtual one).
    ///   - body: the work, given the session. Keep no reference to the session past it:
    ///     afterwards its sign-ins and sign-outs throw ``ChappieAuthError/sessionShutDown``.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws, after the session has shut down.
    public static func with<Result>(
        configuration: ChappieConfiguration = ChappieConfiguration(), timeSource: ChappieTimeSource = .system,
        _ body: (ChappieAuthSession) async throws -> Result
    ) async rethrows -> Result {
        let session = ChappieAuthSession(configuration: configuration, timeSource: timeSource)
        do {
            let result = try await body(session)
            await session.shutdown()
            return result
        } catch {
            await session.shutdown()
            throw error
        }
    }

    /// The kernel ids of the threads the session started that have not been reaped (for tests).
    var threadIDs: [Int32] { threads.threadIDs }

    /// Throws ``ChappieAuthError/sessionShutDown`` once ``shutdown()`` was called.
    private func checkNotShutDown() throws {
        if shutdownTask != nil { throw ChappieAuthError.sessionShutDown }
    }

    // MARK: Sign-in

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

    /// Changes of state, device-link state, account info and last error, starting with the current
    /// values. The stream finishes at ``shutdown()`` (after it, it holds only the current values).
    public var updates: AsyncStream<ChappieAuthSessionSnapshot> {
        let (stream, continuation) = AsyncStream<ChappieAuthSessionSnapshot>.makeStream(bufferingPolicy: .bufferingNewest(32))
        guard shutdownTask == nil else {
            continuation.yield(snapshot)
            continuation.finish()
            return stream
        }
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
    /// `.deviceCodeDenied`, `.deadlineExceeded` (15 minutes), `.network`, `.cancelled`, …;
    /// `.sessionShutDown` after ``shutdown()``.
    public func startDeviceCodeSignIn(onDeviceCode: (@MainActor @Sendable (ChappieDeviceCode) -> Void)? = nil) async throws {
        try checkNotShutDown()
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

    /// Signs in with Sign in with ChatGPT and returns once signed in.
    ///
    /// The session listens on `127.0.0.1` (a free port, path `/auth/callback`), hands the
    /// authorize URL to `openURL`, and waits for the browser to come back after the user signed in
    /// and consented on ChatGPT's page. The first sign-in registers the app (its name is
    /// `appName`, which the user may edit there); later sign-ins reuse that registration. The
    /// ID token is verified before anything is saved.
    ///
    /// - Parameters:
    ///   - appName: Your app's real name, shown on the consent page at the first sign-in.
    ///   - enablePlanUsage: Asks ChatGPT to show the consent page again, for a user who declined
    ///     "ChatGPT plan usage" before and now wants to enable it. Leave it false otherwise.
    ///   - timeout: How long to wait for the browser to come back. Default 10 minutes.
    ///   - openURL: Shows the page. Default: the platform's browser (``ChappieBrowserOpener/system``).
    /// - Returns: Who signed in, and whether ChatGPT plan usage was granted.
    /// - Throws: ``ChappieAuthError`` (also kept in ``lastError``), e.g. `.consentDenied`,
    ///   `.callbackTimedOut`, `.browserUnavailable`, `.invalidIDToken`, `.accountMismatch`,
    ///   `.identityVerificationUnavailable` (retryable; a saved sign-in is kept), `.cancelled`
    ///   when the calling task is cancelled or ``cancelSignIn()`` is called, `.sessionShutDown` after
    ///   ``shutdown()``. The listener is closed
    ///   whenever this returns or throws.
    @discardableResult
    public func signInWithChatGPT(appName: String, enablePlanUsage: Bool = false, timeout: Duration = .seconds(600),
                                  openURL: ChappieBrowserOpener = .system) async throws -> ChappieSignInWithChatGPTResult {
        try await signInWithChatGPT(appName: appName, enablePlanUsage: enablePlanUsage, timeout: timeout, openURL: openURL,
                                    preferredPort: nil, startNewRegistration: false)
    }

    /// ``signInWithChatGPT(appName:enablePlanUsage:timeout:openURL:)`` with the listener's
    /// preferred port (any free port when it is taken) and, with `startNewRegistration`, a new
    /// registration instead of this slot's saved one (after ``ChappieAuthError/registrationInvalid``).
    @discardableResult
    public func signInWithChatGPT(appName: String, enablePlanUsage: Bool = false, timeout: Duration = .seconds(600),
                                  openURL: ChappieBrowserOpener = .system, preferredPort: UInt16?,
                                  startNewRegistration: Bool = false) async throws -> ChappieSignInWithChatGPTResult {
        try checkNotShutDown()
        guard signInTask == nil else { throw ChappieAuthError.signInInProgress }
        let previousState = state
        state = .signingIn
        lastError = nil
        let siwc = SignInWithChatGPTFlow(configuration: configuration, transport: transport, time: timeSource,
                                         installations: SIWCInstallationStores.store(for: configuration))
        let options = SignInWithChatGPTFlow.Options(appName: appName, enablePlanUsage: enablePlanUsage, timeout: timeout,
                                                    preferredPort: preferredPort, startNewRegistration: startNewRegistration)
        let resultBox = LockedBox<SignInWithChatGPTFlow.Outcome?>(nil)
        let task = Task { @MainActor [manager] in
            let outcome = try await siwc.run(options, open: { url in try await openURL.open(url) }, dismiss: { await openURL.dismiss() })
            try Task.checkCancellation()
            try await manager.adopt(outcome.credential)
            resultBox.withLock { $0 = outcome }
        }
        signInTask = task
        defer { signInTask = nil }
        do {
            try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
            guard let outcome = resultBox.withLock({ $0 }) else { throw ChappieAuthError.cancelled }
            let info = outcome.credential.accountInfo
            accountInfo = info
            state = .signedIn
            return ChappieSignInWithChatGPTResult(account: info, registrationLabel: outcome.registration.label,
                                                  planUsageEnabled: outcome.credential.planUsageEnabled,
                                                  showsPlanUsageNotice: outcome.showsPlanUsageNotice)
        } catch {
            let authError = Self.authError(from: error)
            lastError = authError
            switch previousState {
            case .signingIn: state = .signedOut
            case .restoring: state = Self.state(for: await manager.currentStatus())
            default: state = previousState
            }
            throw authError
        }
    }

    /// Records that the user dismissed the one-time "You're using your ChatGPT plan" notice
    /// (``ChappieSignInWithChatGPTResult/showsPlanUsageNotice``), so it is never shown again for
    /// this registration. Throws ``ChappieAuthError/credentialStore(_:)`` when it cannot be saved.
    public func acknowledgePlanUsageNotice() throws {
        let slot = configuration.keychainAccount
        do {
            try SIWCInstallationStores.store(for: configuration).update { record in
                guard let index = record.registrations.lastIndex(where: { $0.slot == slot }) else { return }
                record.registrations[index].planUsageNoticeShown = true
            }
        } catch { throw ChappieAuthError.credentialStore(Redaction.clean("\(error)")) }
    }

    /// The Sign in with ChatGPT registrations of this installation (every account and workspace
    /// the app was registered with, signed in or not), each with a stable, distinct label; the
    /// one of this session's slot is marked ``ChappieSignInWithChatGPTRegistration/isCurrent``.
    /// Throws ``ChappieAuthError/credentialStore(_:)`` when the record cannot be read.
    public func signInWithChatGPTRegistrations() throws -> [ChappieSignInWithChatGPTRegistration] {
        let record: SIWCInstallation?
        do { record = try SIWCInstallationStores.store(for: configuration).load() }
        catch { throw ChappieAuthError.credentialStore(Redaction.clean("\(error)")) }
        let issuer = OpenIDDiscovery.issuerIdentifier(configuration.endpoints.authIssuer)
        return (record?.registrations ?? []).filter { $0.issuer == issuer }.map { registration in
            ChappieSignInWithChatGPTRegistration(label: registration.label, email: registration.email, clientID: registration.clientID,
                                                 account: registration.slot,
                                                 isCurrent: registration.slot == configuration.keychainAccount,
                                                 isActive: registration.slot == record?.activeSlot)
        }
    }

    /// Signs out like ``signOut()->()`` and says whether the sign-in server confirmed that it
    /// revoked the session. When it did not (the server was unreachable), the tokens are deleted
    /// from this device anyway: tell the user to disconnect the app in ChatGPT's settings
    /// (``ChappieSignOutResult/remoteDisconnectConfirmed``). A Sign in with ChatGPT registration
    /// and the installation's host id are kept, so the next sign-in reuses them.
    /// Throws ``ChappieAuthError/credentialStore(_:)`` when the credential cannot be deleted, and
    /// ``ChappieAuthError/sessionShutDown`` after ``shutdown()`` (nothing is deleted then).
    public func signOutReportingRevocation() async throws -> ChappieSignOutResult {
        try checkNotShutDown()
        cancelSignIn()
        let confirmed: Bool
        do {
            confirmed = try await manager.signOut(credentialContext)
        } catch let error as ChappieAuthError {
            lastError = error
            throw error
        }
        accountInfo = nil
        deviceLinkState = .idle
        state = .signedOut
        return ChappieSignOutResult(remoteDisconnectConfirmed: confirmed)
    }

    /// Stops a running sign-in; ``startDeviceCodeSignIn(onDeviceCode:)`` then throws `.cancelled`.
    public func cancelSignIn() {
        signInTask?.cancel()
    }

    /// Signs out: revokes the refresh token best-effort and deletes this configuration's
    /// credential only (other accounts are untouched). Throws ``ChappieAuthError/credentialStore(_:)``
    /// when the credential cannot be deleted, ``ChappieAuthError/sessionShutDown`` after ``shutdown()``.
    public func signOut() async throws {
        _ = try await signOutReportingRevocation()
    }

    private func observeManager() async {
        let updates = await manager.statusUpdates()
        // A shutdown while the first read ran: nothing to follow any more.
        guard shutdownTask == nil else { return }
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
