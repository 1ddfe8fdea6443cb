import Foundation

/// The credential owner of one slot (store, service, account, issuer): loads the credential,
/// refreshes it before it expires and after a 401, persists rotated tokens before anyone uses
/// them, and reports status changes. All auth sessions and clients of one slot in a process share
/// one owner (DESIGN §3, §4); the registry holds owners weakly, so an owner is released when no
/// session or client uses it any more.
///
/// The owner keeps nothing that belongs to a caller: every call that may reach the token endpoint
/// takes the caller's ``CredentialContext`` (transport, clock, logger). A refresh runs as one
/// flight that concurrent callers join; the flight started by the first caller uses its context.
///
/// Ordering rules:
/// - Each refresh flight has an id; a finished or cancelled flight only ever clears itself, never
///   a newer one.
/// - Sign-out wins over a refresh in flight: the sign-out epoch moves first, and a flight that
///   comes back after it drops its tokens (revoking the new refresh token, best effort) instead of
///   saving them. Saves and deletes of the store run one at a time, in order, so a save already
///   under way finishes before the sign-out's delete.
actor CredentialManager {
    private let store: any ChappieCredentialStore
    private let key: ChappieCredentialKey

    private var credential: ChappieCredential?
    private var loaded = false
    private var generation = 0
    private var refreshFlight: RefreshFlight?
    private var flightCount = 0
    /// A terminal refresh failure for the refresh token that caused it: later calls fail at once
    /// until the stored credential changes.
    private var terminalFailure: (refreshToken: String?, reason: String)?
    private var observers: [UUID: AsyncStream<CredentialStatus>.Continuation] = [:]
    /// Sign-outs of this slot so far in this process, and the requests waiting for the next one.
    private var signOuts = 0
    /// Moves on every sign-out and sign-in: a refresh flight started under an older epoch never
    /// saves its tokens.
    private var epoch = 0
    private var signOutWaiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    /// One store write (save or delete) at a time, in call order.
    private var storeWriteInProgress = false
    private var storeWriteWaiters: [CheckedContinuation<Void, Never>] = []

    /// Refresh when the access token expires within this many seconds.
    static let refreshSkew: TimeInterval = 5 * 60

    private static let registry = LockedBox<[String: WeakOwner]>([:])

    /// A registry entry that does not keep its owner alive.
    private struct WeakOwner {
        weak var owner: CredentialManager?
    }

    /// The owner of `configuration`'s slot, created on first use and shared while anyone holds it.
    static func shared(for configuration: ChappieConfiguration) -> CredentialManager {
        let name = [configuration.credentialStore.identity, configuration.keychainService, configuration.keychainAccount,
                    configuration.endpoints.authIssuer.absoluteString].joined(separator: "\u{0}")
        return registry.withLock { owners in
            if let existing = owners[name]?.owner { return existing }
            owners = owners.filter { $0.value.owner != nil }
            let owner = CredentialManager(store: configuration.credentialStore, key: configuration.credentialKey)
            owners[name] = WeakOwner(owner: owner)
            return owner
        }
    }

    init(store: any ChappieCredentialStore, key: ChappieCredentialKey) {
        self.store = store
        self.key = key
    }

    /// A stream of status changes, starting with the current status.
    func statusUpdates() async -> AsyncStream<CredentialStatus> {
        let (stream, continuation) = AsyncStream<CredentialStatus>.makeStream(bufferingPolicy: .bufferingNewest(8))
        let id = UUID()
        observers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            Task { await self.removeObserver(id) }
        }
        continuation.yield(await currentStatus())
        return stream
    }

    private func removeObserver(_ id: UUID) { observers[id] = nil }

    private func publish(_ status: CredentialStatus) {
        for observer in observers.values { observer.yield(status) }
    }

    /// The current status, reading the store if needed.
    func currentStatus() async -> CredentialStatus {
        do {
            guard let credential = try await loadIfNeeded() else { return .signedOut }
            if let failure = terminalFailure, failure.refreshToken == credential.refreshToken {
                return .reauthenticationRequired(failure.reason)
            }
            return .signedIn(credential.accountInfo)
        } catch {
            return .signedOut
        }
    }

    /// Re-reads the store (another process may have changed it) and reports the status.
    func reload() async throws -> CredentialStatus {
        loaded = false
        _ = try await loadIfNeeded()
        let status = await currentStatus()
        publish(status)
        return status
    }

    /// Account facts of the stored credential, without any token.
    func accountInfo() async throws -> ChappieAccountInfo {
        guard let credential = try await loadIfNeeded() else { throw ChappieClientError.missingCredential }
        return credential.accountInfo
    }

    /// Stores a freshly signed-in credential (persist before publish).
    func adopt(_ newCredential: ChappieCredential) async throws {
        epoch += 1
        // The previous sign-in is forgotten before the next suspension, so no caller resuming
        // meanwhile uses it; the new one is used once it is saved (if saving fails, the store is
        // read again on next use).
        credential = nil
        loaded = true
        detachRefreshFlight()
        do {
            try await writingStore {
                do { try await store.saveCredential(newCredential, for: key) }
                catch { throw ChappieAuthError.credentialStore(Redaction.clean("\(error)")) }
            }
        } catch {
            loaded = false
            throw error
        }
        credential = newCredential
        loaded = true
        generation += 1
        terminalFailure = nil
        publish(.signedIn(newCredential.accountInfo))
    }

    /// Revokes (best effort, through `context`) and deletes this slot's credential. A refresh in
    /// flight is dropped: its tokens are never saved. Returns whether the issuer confirmed the
    /// revocation (true when nothing was stored); the local credential is deleted either way.
    @discardableResult
    func signOut(_ context: CredentialContext) async throws -> Bool {
        let old = try? await loadIfNeeded()
        signOuts += 1
        epoch += 1
        // Forgotten before the next suspension: no caller resuming meanwhile (a cut-short refresh,
        // a new request) may use the signed-out credential while the store deletes it.
        credential = nil
        loaded = true
        detachRefreshFlight()
        let waiters = signOutWaiters.values
        signOutWaiters.removeAll()
        waiters.forEach { $0.resume() }
        try await writingStore {
            do { try await store.deleteCredential(for: key) }
            catch { throw ChappieAuthError.credentialStore(Redaction.clean("\(error)")) }
        }
        credential = nil
        loaded = true
        generation += 1
        terminalFailure = nil
        publish(.signedOut)
        guard let old else { return true }
        return await context.tokenEndpoint.revoke(old, time: context.time)
    }

    /// A mark for ``waitForSignOut(after:)``: the number of sign-outs of this slot so far.
    var signOutMark: Int { signOuts }

    /// Returns once the slot is signed out after `mark` (at once if that already happened), or
    /// when the calling task is cancelled. Requests race it so signing out stops them.
    func waitForSignOut(after mark: Int) async {
        guard signOuts == mark else { return }
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled { continuation.resume() } else { signOutWaiters[id] = continuation }
            }
        } onCancel: {
            Task { await self.stopWaiting(id) }
        }
    }

    private func stopWaiting(_ id: UUID) {
        signOutWaiters.removeValue(forKey: id)?.resume()
    }

    /// A valid authorization for a request, refreshing first (through `context`) when the access
    /// token expires within ``refreshSkew``. Throws ``ChappieClientError``.
    func authorization(_ context: CredentialContext) async throws -> Authorization {
        guard let current = try await loadIfNeeded() else { throw ChappieClientError.missingCredential }
        if let failure = terminalFailure, failure.refreshToken == current.refreshToken {
            throw ChappieClientError.reauthenticationRequired(failure.reason)
        }
        let now = context.time.now()
        if let expiry = current.accessTokenExpiresAt, expiry.timeIntervalSince(now) < Self.refreshSkew {
            do {
                let refreshed = try await refresh(rejecting: current, context)
                return try authorization(for: refreshed)
            } catch let error as ChappieClientError {
                // A failed proactive refresh keeps using a token that is still valid.
                if case .network = error, expiry > now, credential?.accessToken == current.accessToken {
                    return try authorization(for: current)
                }
                throw error
            }
        }
        return try authorization(for: current)
    }

    /// Called after the backend answered 401 to `rejected`: refreshes (once for all callers) unless
    /// a newer token already exists, and returns the authorization to retry with.
    func recoverFromUnauthorized(rejected: Authorization, _ context: CredentialContext) async throws -> Authorization {
        if rejected.generation < generation, let current = credential {
            return try authorization(for: current)
        }
        guard let current = try await loadIfNeeded() else { throw ChappieClientError.missingCredential }
        let refreshed = try await refresh(rejecting: current, context)
        return try authorization(for: refreshed)
    }

    private func authorization(for credential: ChappieCredential) throws -> Authorization {
        guard let accountID = credential.accountID, !accountID.isEmpty else { throw ChappieClientError.missingAccountID }
        return Authorization(accessToken: credential.accessToken, accountID: accountID, generation: generation)
    }

    /// A refresh in progress: its id (a finished flight never clears a newer one), the epoch it
    /// started in, and its task.
    private struct RefreshFlight {
        var id: Int
        var epoch: Int
        var task: Task<ChappieCredential, any Error>
    }

    /// Callers that joined a flight another caller started (for tests).
    private(set) var flightJoins = 0

    /// One refresh flight at a time; concurrent callers join it, and every caller of a flight cut
    /// short by a sign-out or a new sign-in gets the slot's state instead of the flight's error.
    private func refresh(rejecting stale: ChappieCredential, _ context: CredentialContext) async throws -> ChappieCredential {
        let flight: RefreshFlight
        if let current = refreshFlight {
            flightJoins += 1
            flight = current
        } else {
            if let current = credential, current.accessToken != stale.accessToken { return current }
            flightCount += 1
            let flightEpoch = epoch
            flight = RefreshFlight(id: flightCount, epoch: flightEpoch,
                                   task: Task { try await self.performRefresh(of: stale, epoch: flightEpoch, context) })
            refreshFlight = flight
        }
        defer { if refreshFlight?.id == flight.id { refreshFlight = nil } }
        do {
            return try await flight.task.value
        } catch {
            guard epoch != flight.epoch else { throw error }
            try Task.checkCancellation()
            if let current = credential { return current }
            throw ChappieClientError.missingCredential
        }
    }

    /// Lets a sign-out or a new sign-in leave the refresh in flight behind: later callers start
    /// their own. Its request is not cancelled: a token endpoint that already rotated the tokens
    /// would otherwise leave them valid and unknown; answered, they are revoked and never saved
    /// (its epoch is old), and its callers get the slot's state.
    private func detachRefreshFlight() {
        refreshFlight = nil
    }

    private func performRefresh(of stale: ChappieCredential, epoch: Int, _ context: CredentialContext) async throws -> ChappieCredential {
        // Under the store's cross-process lock, re-read the store first: another process may
        // already have rotated the tokens, and its newer credential must be adopted, not
        // overwritten, and its spent refresh token not spent again.
        try await store.withRefreshLock(for: key) {
            try await self.refreshHoldingLock(stale, epoch: epoch, context)
        }
    }

    private func refreshHoldingLock(_ stale: ChappieCredential, epoch: Int, _ context: CredentialContext) async throws -> ChappieCredential {
        let stored: ChappieCredential?
        do { stored = try await store.loadCredential(for: key) }
        catch { throw ChappieClientError.credentialStore(Redaction.clean("\(error)")) }
        try requireNoSignOut(since: epoch)
        guard let stored else {
            credential = nil
            publish(.signedOut)
            throw ChappieClientError.missingCredential
        }
        if stored.accessToken != stale.accessToken {
            guard stored.accountID == stale.accountID else {
                let reason = "the saved sign-in now belongs to another account"
                await markTerminal(refreshToken: stale.refreshToken, reason: reason, epoch: epoch, context)
                throw ChappieClientError.reauthenticationRequired(reason)
            }
            credential = stored
            generation += 1
            if let expiry = stored.accessTokenExpiresAt, expiry.timeIntervalSince(context.time.now()) >= Self.refreshSkew {
                return stored
            }
            return try await spendRefreshToken(of: stored, epoch: epoch, context)
        }
        return try await spendRefreshToken(of: stale, epoch: epoch, context)
    }

    private func spendRefreshToken(of current: ChappieCredential, epoch: Int, _ context: CredentialContext) async throws -> ChappieCredential {
        guard let refreshToken = current.refreshToken, !refreshToken.isEmpty else {
            await markTerminal(refreshToken: nil, reason: "the saved sign-in has no refresh token", epoch: epoch, context)
            throw ChappieClientError.missingRefreshToken
        }
        let tokens: TokenResponse
        context.logger(.debug, "refresh.started", ["slot": key.description])
        do {
            tokens = try await context.tokenEndpoint.refresh(current, refreshToken: refreshToken, time: context.time)
        } catch let failure as RefreshFailure {
            context.logger(.warning, "refresh.failed", ["slot": key.description, "kind": "\(failure)"])
            try requireNoSignOut(since: epoch)
            switch failure {
            case .terminal(let status, let code):
                let reason = "the sign-in server refused to renew the session (HTTP \(status)\(code.map { ", \($0)" } ?? ""))"
                await markTerminal(refreshToken: refreshToken, reason: reason, epoch: epoch, context)
                throw ChappieClientError.reauthenticationRequired(reason)
            case .transient(let message):
                throw ChappieClientError.network("could not renew the session: \(message)", mayHaveReachedServer: true)
            }
        }
        let refreshed = current.refreshed(with: tokens, at: context.time.now())
        guard self.epoch == epoch else {
            // Signed out while the token endpoint answered: the new tokens are dropped, never saved.
            await context.tokenEndpoint.revoke(refreshed, time: context.time)
            throw ChappieClientError.missingCredential
        }
        if let newAccount = refreshed.accountID, let oldAccount = current.accountID, newAccount != oldAccount {
            let reason = "the renewed sign-in belongs to a different account"
            await markTerminal(refreshToken: refreshToken, reason: reason, epoch: epoch, context)
            throw ChappieClientError.reauthenticationRequired(reason)
        }
        // Persist before publish: a rotated refresh token that is not saved is lost for good.
        try await writingStore {
            try requireNoSignOut(since: epoch)
            do { try await store.saveCredential(refreshed, for: key) }
            catch { throw ChappieClientError.credentialStore(Redaction.clean("\(error)")) }
        }
        credential = refreshed
        generation += 1
        context.logger(.info, "refresh.succeeded", ["slot": key.description, "generation": "\(generation)"])
        return refreshed
    }

    /// Throws ``ChappieClientError/missingCredential`` when the slot was signed out (or signed in
    /// anew) after `epoch`.
    private func requireNoSignOut(since epoch: Int) throws {
        if self.epoch != epoch { throw ChappieClientError.missingCredential }
    }

    /// Runs `write` (a save or a delete) after every earlier write has finished.
    private func writingStore(_ write: () async throws -> Void) async throws {
        if storeWriteInProgress {
            await withCheckedContinuation { storeWriteWaiters.append($0) }
        } else {
            storeWriteInProgress = true
        }
        defer {
            if storeWriteWaiters.isEmpty { storeWriteInProgress = false } else { storeWriteWaiters.removeFirst().resume() }
        }
        try await write()
    }

    /// Records a refresh token the issuer will not renew: reported at once, and written into the
    /// stored credential (in order with other store writes, and only while the slot has not been
    /// signed out or in anew since `epoch`) so the next launch starts `.reauthenticationRequired`.
    private func markTerminal(refreshToken: String?, reason: String, epoch: Int, _ context: CredentialContext) async {
        terminalFailure = (refreshToken, reason)
        publish(.reauthenticationRequired(reason))
        try? await writingStore {
            guard self.epoch == epoch else { return }
            await ReauthenticationMarker.persist(reason: reason, rejectedRefreshToken: refreshToken, store: store, key: key,
                                                 logger: context.logger)
        }
    }

    private func loadIfNeeded() async throws -> ChappieCredential? {
        if loaded { return credential }
        do {
            let stored = try await store.loadCredential(for: key)
            if stored?.accessToken != credential?.accessToken { generation += 1 }
            credential = stored
            loaded = true
            if let stored, let reason = stored.reauthenticationReason { terminalFailure = (stored.refreshToken, reason) }
            return stored
        } catch {
            throw ChappieClientError.credentialStore(Redaction.clean("\(error)"))
        }
    }
}

/// What a call to the credential owner brings from its caller: the token endpoint (over the
/// caller's transport), the caller's clock and logger. Nothing of it is kept by the owner.
struct CredentialContext: Sendable {
    /// The issuer's token endpoint over the caller's transport.
    let tokenEndpoint: TokenEndpoint
    /// The caller's clock (expiry checks, the time a refreshed token was obtained).
    let time: ChappieTimeSource
    /// The caller's logger.
    let logger: Logger

    /// The context of a caller built from `configuration`, sending through `transport`.
    init(configuration: ChappieConfiguration, transport: any HTTPTransport, time: ChappieTimeSource) {
        tokenEndpoint = TokenEndpoint(endpoints: configuration.endpoints, transport: transport)
        self.time = time
        logger = configuration.logger
    }

    /// A context from its parts (tests).
    init(tokenEndpoint: TokenEndpoint, time: ChappieTimeSource, logger: Logger = .silent) {
        self.tokenEndpoint = tokenEndpoint
        self.time = time
        self.logger = logger
    }
}
