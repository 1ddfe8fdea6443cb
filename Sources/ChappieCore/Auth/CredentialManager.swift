import ChappieTransport
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
/// - Across processes, sign-in, sign-out and refresh take the store's refresh lock, so another
///   process's late refresh can never write back a credential this process deleted or replaced;
///   and a refresh saves only over the credential it started from (compare and swap under that
///   lock): when the store changed meanwhile, the new tokens are revoked and the store's content
///   wins.
/// - Every request re-reads the store first (unless a write or a refresh of this owner is under
///   way), so another process's sign-in or sign-out is noticed before the next request.
actor CredentialManager {
    private let store: any ChappieCredentialStore
    private let key: ChappieCredentialKey

    private var credential: ChappieCredential?
    private var loaded = false
    private var generation = 0
    private var refreshFlight: RefreshFlight?
    private var flightCount = 0
    /// A terminal refresh failure for the refresh token that caused it: later calls fail at once
    /// until the stored credential changes. `revokedAccessToken`: the access token the server said
    /// it revoked (`token_revoked`), which is never sent again although it has not expired.
    private var terminalFailure: (refreshToken: String?, reason: String, revokedAccessToken: String?)?
    private var observers: [UUID: AsyncStream<CredentialStatus>.Continuation] = [:]
    /// Sign-outs of this slot so far in this process, and the requests waiting for the next one.
    private var signOuts = 0
    /// Moves on every sign-out and sign-in: a refresh flight started under an older epoch never
    /// saves its tokens.
    private var epoch = 0
    private var signOutWaiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    /// One store write (save or delete) at a time, in call order. A write always completes (its
    /// wait ignores cancellation): a sign-out must not stop between forgetting and deleting.
    private let storeWriteGate = FIFOGate()
    private var storeWriteInProgress: Bool { storeWriteGate.isHeld }
    /// Counts this owner's store writes: a re-read that overlapped one is discarded.
    private var storeWrites = 0
    /// A rotated credential the store could not save (a full disk): used from memory, and saved
    /// before the next request, over the credential whose refresh token it spent.
    private var pendingSave: (credential: ChappieCredential, spentRefreshToken: String)?

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

    /// The access token of the stored credential, read from the store at most once and never
    /// refreshed here: what a reply must not echo (``EchoedSecretFilter``). Nil when signed out
    /// or unreadable.
    func echoableAccessToken() async -> String? {
        (try? await loadIfNeeded())?.accessToken
    }

    /// Account facts of the stored credential, without any token.
    func accountInfo() async throws -> ChappieAccountInfo {
        guard let credential = try await loadIfNeeded() else { throw ChappieClientError.missingCredential }
        return credential.accountInfo
    }

    /// Stores a freshly signed-in credential (persist before publish).
    func adopt(_ newCredential: ChappieCredential) async throws {
        epoch += 1
        pendingSave = nil
        // The previous sign-in is forgotten before the next suspension, so no caller resuming
        // meanwhile uses it; the new one is used once it is saved (if saving fails, the store is
        // read again on next use).
        credential = nil
        loaded = true
        detachRefreshFlight()
        do {
            try await holdingStoreLock { try await self.saveSignIn(newCredential) }
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
        pendingSave = nil
        // Forgotten before the next suspension: no caller resuming meanwhile (a cut-short refresh,
        // a new request) may use the signed-out credential while the store deletes it.
        credential = nil
        loaded = true
        detachRefreshFlight()
        let waiters = signOutWaiters.values
        signOutWaiters.removeAll()
        waiters.forEach { $0.resume() }
        try await holdingStoreLock { try await self.deleteForSignOut() }
        credential = nil
        loaded = true
        generation += 1
        terminalFailure = nil
        publish(.signedOut)
        guard let old else { return true }
        return await context.tokenEndpoint.revoke(old, time: context.time)
    }

    /// Saves a signed-in credential (holding the store's lock), in order with other writes.
    private func saveSignIn(_ newCredential: ChappieCredential) async throws {
        try await writingStore {
            do { try await store.saveCredential(newCredential, for: key) }
            catch { throw ChappieAuthError.credentialStore(Redaction.clean("\(error)")) }
        }
    }

    /// Deletes the credential (holding the store's lock), in order with other writes.
    private func deleteForSignOut() async throws {
        try await writingStore {
            do { try await store.deleteCredential(for: key) }
            catch { throw ChappieAuthError.credentialStore(Redaction.clean("\(error)")) }
        }
    }

    /// Runs `body` holding the store's cross-process lock; a lock that cannot be taken is a
    /// ``ChappieAuthError/credentialStore(_:)`` that says why.
    private func holdingStoreLock(_ body: @Sendable () async throws -> Void) async throws {
        do {
            try await store.withRefreshLock(for: key, body)
        } catch let error as ChappieCredentialStoreError {
            throw ChappieAuthError.credentialStore(Redaction.clean(error.description))
        }
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
        await retryPendingSave(context)
        guard let current = try await rereadStore() else { throw ChappieClientError.missingCredential }
        let now = context.time.now()
        if let failure = terminalFailure, failure.refreshToken == current.refreshToken {
            // The issuer will not renew it, but the access token still works until it expires
            // (unless the server said it revoked that token).
            if let expiry = current.accessTokenExpiresAt, expiry > now, failure.revokedAccessToken != current.accessToken {
                return try authorization(for: current)
            }
            throw ChappieClientError.reauthenticationRequired(failure.reason)
        }
        if let expiry = current.accessTokenExpiresAt, expiry.timeIntervalSince(now) < Self.refreshSkew {
            do {
                let refreshed = try await refresh(rejecting: current, context)
                return try authorization(for: refreshed)
            } catch let error as ChappieClientError {
                // A failed or refused proactive refresh keeps using a token that is still valid.
                let keepsToken = switch error {
                case .network, .reauthenticationRequired: true
                default: false
                }
                if keepsToken, expiry > now, credential?.accessToken == current.accessToken {
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

    /// Called after the backend answered 401 to `rejected` with `token_revoked` or
    /// `token_invalidated` (`x-error-json`, PROTOCOL §2.4): the sign-in server ended that session,
    /// so its refresh token is not spent. The store is read again (another process may have signed
    /// in anew since) and a newer credential of the same account is used; otherwise the slot needs
    /// a new sign-in (``ChappieClientError/reauthenticationRequired(_:)``, published and stored).
    func recoverFromRevokedToken(rejected: Authorization, code: String, _ context: CredentialContext) async throws -> Authorization {
        if rejected.generation < generation, let current = credential, current.accessToken != rejected.accessToken {
            return try authorization(for: current)
        }
        let epoch = self.epoch
        loaded = false
        let stored = try await loadIfNeeded()
        try requireNoSignOut(since: epoch)
        guard let stored else { throw ChappieClientError.missingCredential }
        if stored.accessToken != rejected.accessToken, stored.reauthenticationReason == nil {
            guard stored.accountID == rejected.accountID else {
                let reason = "the saved sign-in now belongs to another account"
                await markTerminal(refreshToken: stored.refreshToken, reason: reason, epoch: epoch, context)
                throw ChappieClientError.reauthenticationRequired(reason)
            }
            context.logger(.info, "credential.adopted_from_store", ["slot": key.description])
            return try authorization(for: stored)
        }
        let reason = "the session was ended on the server (HTTP 401, \(code))"
        context.logger(.warning, "credential.revoked", ["slot": key.description, "code": code])
        await markTerminal(refreshToken: stored.refreshToken, reason: reason, epoch: epoch, revokedAccessToken: rejected.accessToken, context)
        throw ChappieClientError.reauthenticationRequired(reason)
    }

    private func authorization(for credential: ChappieCredential) throws -> Authorization {
        switch credential.route {
        case .deviceCode:
            guard let accountID = credential.accountID, !accountID.isEmpty else { throw ChappieClientError.missingAccountID }
            return Authorization(accessToken: credential.accessToken, accountID: accountID, generation: generation)
        case .signInWithChatGPT:
            // The public API takes no account header; the issued client id stands for the workspace.
            return Authorization(accessToken: credential.accessToken, accountID: nil, generation: generation, route: .signInWithChatGPT,
                                 planUsageEnabled: credential.planUsageEnabled)
        }
    }

    /// The sign-in route of the stored credential, without refreshing it: it picks the backend
    /// a request goes to. Throws ``ChappieClientError/missingCredential`` or a store error.
    func route() async throws -> ChappieSignInRoute {
        guard let credential = try await loadIfNeeded() else { throw ChappieClientError.missingCredential }
        return credential.route
    }

    /// What identifies whose model catalog a cache holds: the route, the issued client id (a
    /// Sign in with ChatGPT registration is bound to one user and workspace) and the account id.
    /// It changes when another account signs in, never on a refresh. Nil when signed out.
    func catalogOwner() async -> String? {
        guard let credential = try? await loadIfNeeded() else { return nil }
        return [credential.route.rawValue, credential.clientID ?? "", credential.accountID ?? "",
                JWTClaims(token: credential.idToken)?.subject ?? ""].joined(separator: "\u{0}")
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
            // The caller's cancellation reaches the flight: its wait for another process's lock
            // and its token request end at once (Ctrl-C). Rotated tokens that already arrived are
            // still saved: nothing after the token request waits on cancellation.
            return try await withTaskCancellationHandler {
                try await flight.task.value
            } onCancel: {
                flight.task.cancel()
            }
        } catch {
            if error is CancellationError, !Task.isCancelled, epoch == flight.epoch {
                // Another caller's cancellation ended the flight this caller joined: start anew.
                if refreshFlight?.id == flight.id { refreshFlight = nil }
                return try await refresh(rejecting: stale, context)
            }
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
        do {
            return try await store.withRefreshLock(for: key) {
                try await self.refreshHoldingLock(stale, epoch: epoch, context)
            }
        } catch let error as ChappieCredentialStoreError {
            // The lock itself failed (the body wraps its own store errors): say why.
            throw ChappieClientError.credentialStore(Redaction.clean(error.description))
        }
    }

    private func refreshHoldingLock(_ stale: ChappieCredential, epoch: Int, _ context: CredentialContext) async throws -> ChappieCredential {
        if let pending = pendingSave { await savePendingHoldingLock(pending, context) }
        let stored: ChappieCredential?
        if let pending = pendingSave {
            stored = pending.credential  // still unsaved: memory holds the newest credential
        } else {
            do { stored = try await store.loadCredential(for: key) }
            catch { throw ChappieClientError.credentialStore(Redaction.clean("\(error)")) }
        }
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
        // Persist before publish: a rotated refresh token that is not saved is lost for good. Saved
        // only over the credential this refresh started from (still under the cross-process lock):
        // a sign-in or sign-out that reached the store meanwhile wins.
        // A save that fails (a full disk) keeps the rotated credential in memory and retries later:
        // dropping it would lose the only valid refresh token.
        var superseded: ChappieCredential??
        try await writingStore {
            try requireNoSignOut(since: epoch)
            let latest: ChappieCredential?
            do { latest = try await store.loadCredential(for: key) }
            catch { throw ChappieClientError.credentialStore(Redaction.clean("\(error)")) }
            let base = pendingSave?.spentRefreshToken ?? refreshToken
            guard latest?.refreshToken == refreshToken || latest?.refreshToken == base else {
                superseded = .some(latest)
                return
            }
            do {
                try await store.saveCredential(refreshed, for: key)
                pendingSave = nil
            } catch {
                context.logger(.error, "refresh.save_failed", ["slot": key.description, "error": Redaction.clean("\(error)")])
                pendingSave = (refreshed, pendingSave?.spentRefreshToken ?? refreshToken)
            }
        }
        if case .some(let latest) = superseded {
            pendingSave = nil
            return try await adoptSuperseding(latest, droppingRefreshToken: tokens.refreshToken, of: current, context)
        }
        credential = refreshed
        generation += 1
        context.logger(.info, "refresh.succeeded", ["slot": key.description, "generation": "\(generation)"])
        return refreshed
    }

    /// Saves the credential a failed save left in memory, before a request, holding the store's
    /// lock (best effort: a failure leaves it pending).
    private func retryPendingSave(_ context: CredentialContext) async {
        guard pendingSave != nil else { return }
        try? await holdingStoreLock { [self] in
            if let pending = await pendingSave { await savePendingHoldingLock(pending, context) }
        }
    }

    /// Saves `pending` over the credential whose refresh token it spent; when the store holds
    /// something else (another process signed in or out meanwhile), that wins and the pending
    /// tokens are revoked. Called holding the store's lock.
    private func savePendingHoldingLock(_ pending: (credential: ChappieCredential, spentRefreshToken: String),
                                        _ context: CredentialContext) async {
        var superseded: ChappieCredential??
        try? await writingStore {
            guard pendingSave?.credential.refreshToken == pending.credential.refreshToken else { return }
            let latest = try await store.loadCredential(for: key)
            guard latest?.refreshToken == pending.spentRefreshToken || latest?.refreshToken == pending.credential.refreshToken else {
                superseded = .some(latest)
                return
            }
            try await store.saveCredential(pending.credential, for: key)
            pendingSave = nil
            context.logger(.info, "refresh.save_recovered", ["slot": key.description])
        }
        guard case .some(let latest) = superseded else { return }
        pendingSave = nil
        if let token = pending.credential.refreshToken { await context.tokenEndpoint.revoke(token: token, hint: "refresh_token") }
        credential = latest
        loaded = true
        generation += 1
        publish(latest.map { .signedIn($0.accountInfo) } ?? .signedOut)
    }

    /// After a refresh found the store changed by someone else (another process's sign-in or
    /// sign-out): revokes the tokens it got, takes the store's content and returns it, or throws
    /// ``ChappieClientError/missingCredential`` (signed out) or
    /// ``ChappieClientError/reauthenticationRequired(_:)`` (now another account's sign-in).
    private func adoptSuperseding(_ latest: ChappieCredential?, droppingRefreshToken newRefreshToken: String?, of current: ChappieCredential,
                                  _ context: CredentialContext) async throws -> ChappieCredential {
        context.logger(.warning, "refresh.superseded", ["slot": key.description])
        if let newRefreshToken { await context.tokenEndpoint.revoke(token: newRefreshToken, hint: "refresh_token") }
        credential = latest
        loaded = true
        generation += 1
        guard let latest else {
            publish(.signedOut)
            throw ChappieClientError.missingCredential
        }
        publish(.signedIn(latest.accountInfo))
        guard latest.accountID == current.accountID else {
            throw ChappieClientError.reauthenticationRequired("the saved sign-in now belongs to another account")
        }
        return latest
    }

    /// Throws ``ChappieClientError/missingCredential`` when the slot was signed out (or signed in
    /// anew) after `epoch`.
    private func requireNoSignOut(since epoch: Int) throws {
        if self.epoch != epoch { throw ChappieClientError.missingCredential }
    }

    /// Runs `write` (a save or a delete) after every earlier write has finished.
    private func writingStore(_ write: () async throws -> Void) async throws {
        await storeWriteGate.enterIgnoringCancellation()
        defer {
            storeWrites += 1
            storeWriteGate.leave()
        }
        try await write()
    }

    /// Records a refresh token the issuer will not renew: reported at once, and written into the
    /// stored credential (in order with other store writes, and only while the slot has not been
    /// signed out or in anew since `epoch`) so the next launch starts `.reauthenticationRequired`.
    private func markTerminal(refreshToken: String?, reason: String, epoch: Int, revokedAccessToken: String? = nil,
                              _ context: CredentialContext) async {
        terminalFailure = (refreshToken, reason, revokedAccessToken)
        publish(.reauthenticationRequired(reason))
        try? await writingStore {
            guard self.epoch == epoch else { return }
            await ReauthenticationMarker.persist(reason: reason, rejectedRefreshToken: refreshToken, store: store, key: key,
                                                 logger: context.logger)
        }
    }

    /// Reads the store again before a request, so another process's sign-in or sign-out is seen,
    /// and publishes the change. Uses what it holds while a write or a refresh of its own is under
    /// way, or when a write happened during the read (the read may predate it).
    private func rereadStore() async throws -> ChappieCredential? {
        guard loaded, refreshFlight == nil, !storeWriteInProgress, pendingSave == nil else { return try await loadIfNeeded() }
        let writes = storeWrites
        let before = credential
        let stored: ChappieCredential?
        do { stored = try await store.loadCredential(for: key) }
        catch { throw ChappieClientError.credentialStore(Redaction.clean("\(error)")) }
        guard writes == storeWrites, refreshFlight == nil, !storeWriteInProgress, pendingSave == nil else { return try await loadIfNeeded() }
        guard stored?.accessToken != before?.accessToken || stored?.refreshToken != before?.refreshToken else { return credential }
        generation += 1
        credential = stored
        if let stored, let reason = stored.reauthenticationReason { terminalFailure = (stored.refreshToken, reason, nil) }
        publish(await currentStatus())
        return stored
    }

    private func loadIfNeeded() async throws -> ChappieCredential? {
        if loaded { return credential }
        do {
            let stored = try await store.loadCredential(for: key)
            if stored?.accessToken != credential?.accessToken { generation += 1 }
            credential = stored
            loaded = true
            if let stored, let reason = stored.reauthenticationReason { terminalFailure = (stored.refreshToken, reason, nil) }
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
