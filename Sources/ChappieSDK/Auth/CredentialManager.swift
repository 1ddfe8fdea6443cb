import Foundation

/// Owns the credential of one (store, service, account): loads it, refreshes it before it
/// expires and after a 401, persists rotated tokens before anyone uses them, and reports
/// status changes. One instance per slot in the process, shared by auth sessions and clients
/// built from the same configuration (DESIGN §3).
actor CredentialManager {
    private let store: any ChappieCredentialStore
    private let key: ChappieCredentialKey
    private let tokenEndpoint: TokenEndpoint
    private let time: ChappieTimeSource
    private let logger: Logger

    private var credential: ChappieCredential?
    private var loaded = false
    private var generation = 0
    private var refreshFlight: Task<ChappieCredential, any Error>?
    /// A terminal refresh failure for the refresh token that caused it: later calls fail at once
    /// until the stored credential changes.
    private var terminalFailure: (refreshToken: String?, reason: String)?
    private var observers: [UUID: AsyncStream<CredentialStatus>.Continuation] = [:]
    /// Sign-outs of this slot so far in this process, and the requests waiting for the next one.
    private var signOuts = 0
    private var signOutWaiters: [UUID: CheckedContinuation<Void, Never>] = [:]

    /// Refresh when the access token expires within this many seconds.
    static let refreshSkew: TimeInterval = 5 * 60

    private static let registry = LockedBox<[String: CredentialManager]>([:])

    /// The manager for `configuration`'s slot, created on first use.
    static func shared(for configuration: ChappieConfiguration, transport: any HTTPTransport, time: ChappieTimeSource) -> CredentialManager {
        let name = "\(configuration.credentialStore.identity)\u{0}\(configuration.keychainService)\u{0}\(configuration.keychainAccount)\u{0}\(configuration.endpoints.authIssuer.absoluteString)"
        return registry.withLock { managers in
            if let existing = managers[name] { return existing }
            let manager = CredentialManager(store: configuration.credentialStore, key: configuration.credentialKey,
                                            tokenEndpoint: TokenEndpoint(endpoints: configuration.endpoints, transport: transport),
                                            time: time, logger: configuration.logger)
            managers[name] = manager
            return manager
        }
    }

    init(store: any ChappieCredentialStore, key: ChappieCredentialKey, tokenEndpoint: TokenEndpoint, time: ChappieTimeSource,
         logger: Logger = .silent) {
        self.logger = logger
        self.store = store
        self.key = key
        self.tokenEndpoint = tokenEndpoint
        self.time = time
    }

    /// A stream of status changes, starting with the current status.
    func statusUpdates() async -> AsyncStream<CredentialStatus> {
        let (stream, continuation) = AsyncStream<CredentialStatus>.makeStream(bufferingPolicy: .bufferingNewest(8))
        let id = UUID()
        observers[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeObserver(id) } }
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
        do { try await store.saveCredential(newCredential, for: key) }
        catch { throw ChappieAuthError.credentialStore(Redaction.clean("\(error)")) }
        credential = newCredential
        loaded = true
        generation += 1
        terminalFailure = nil
        refreshFlight?.cancel()
        refreshFlight = nil
        publish(.signedIn(newCredential.accountInfo))
    }

    /// Revokes (best effort) and deletes this slot's credential.
    func signOut() async throws {
        let old = try? await loadIfNeeded()
        refreshFlight?.cancel()
        refreshFlight = nil
        do { try await store.deleteCredential(for: key) }
        catch { throw ChappieAuthError.credentialStore(Redaction.clean("\(error)")) }
        credential = nil
        loaded = true
        generation += 1
        terminalFailure = nil
        signOuts += 1
        let waiters = signOutWaiters.values
        signOutWaiters.removeAll()
        waiters.forEach { $0.resume() }
        publish(.signedOut)
        if let old {
            if let refreshToken = old.refreshToken {
                await tokenEndpoint.revoke(token: refreshToken, hint: "refresh_token")
            } else {
                await tokenEndpoint.revoke(token: old.accessToken, hint: "access_token")
            }
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

    /// A valid authorization for a request, refreshing first when the access token expires within
    /// ``refreshSkew``. Throws ``ChappieClientError``.
    func authorization() async throws -> Authorization {
        guard let current = try await loadIfNeeded() else { throw ChappieClientError.missingCredential }
        if let failure = terminalFailure, failure.refreshToken == current.refreshToken {
            throw ChappieClientError.reauthenticationRequired(failure.reason)
        }
        let now = time.now()
        if let expiry = current.accessTokenExpiresAt, expiry.timeIntervalSince(now) < Self.refreshSkew {
            do {
                let refreshed = try await refresh(rejecting: current)
                return try authorization(for: refreshed)
            } catch let error as ChappieClientError {
                // A failed proactive refresh keeps using a token that is still valid.
                if case .network = error, expiry > now { return try authorization(for: current) }
                throw error
            }
        }
        return try authorization(for: current)
    }

    /// Called after the backend answered 401 to `rejected`: refreshes (once for all callers) unless
    /// a newer token already exists, and returns the authorization to retry with.
    func recoverFromUnauthorized(rejected: Authorization) async throws -> Authorization {
        if rejected.generation < generation, let current = credential {
            return try authorization(for: current)
        }
        guard let current = try await loadIfNeeded() else { throw ChappieClientError.missingCredential }
        let refreshed = try await refresh(rejecting: current)
        return try authorization(for: refreshed)
    }

    private func authorization(for credential: ChappieCredential) throws -> Authorization {
        guard let accountID = credential.accountID, !accountID.isEmpty else { throw ChappieClientError.missingAccountID }
        return Authorization(accessToken: credential.accessToken, accountID: accountID, generation: generation)
    }

    /// One refresh flight at a time; concurrent callers join it.
    private func refresh(rejecting stale: ChappieCredential) async throws -> ChappieCredential {
        if let flight = refreshFlight { return try await flight.value }
        if let current = credential, current.accessToken != stale.accessToken { return current }
        let flight = Task { try await self.performRefresh(of: stale) }
        refreshFlight = flight
        defer { refreshFlight = nil }
        return try await flight.value
    }

    private func performRefresh(of stale: ChappieCredential) async throws -> ChappieCredential {
        // Under the store's cross-process lock, re-read the store first: another process may
        // already have rotated the tokens, and its newer credential must be adopted, not
        // overwritten, and its spent refresh token not spent again.
        try await store.withRefreshLock(for: key) {
            try await self.refreshHoldingLock(stale)
        }
    }

    private func refreshHoldingLock(_ stale: ChappieCredential) async throws -> ChappieCredential {
        let stored: ChappieCredential?
        do { stored = try await store.loadCredential(for: key) }
        catch { throw ChappieClientError.credentialStore(Redaction.clean("\(error)")) }
        guard let stored else {
            credential = nil
            publish(.signedOut)
            throw ChappieClientError.missingCredential
        }
        if stored.accessToken != stale.accessToken {
            guard stored.accountID == stale.accountID else {
                let reason = "the saved sign-in now belongs to another account"
                await markTerminal(refreshToken: stale.refreshToken, reason: reason)
                throw ChappieClientError.reauthenticationRequired(reason)
            }
            credential = stored
            generation += 1
            if let expiry = stored.accessTokenExpiresAt, expiry.timeIntervalSince(time.now()) >= Self.refreshSkew {
                return stored
            }
            return try await spendRefreshToken(of: stored)
        }
        return try await spendRefreshToken(of: stale)
    }

    private func spendRefreshToken(of current: ChappieCredential) async throws -> ChappieCredential {
        guard let refreshToken = current.refreshToken, !refreshToken.isEmpty else {
            await markTerminal(refreshToken: nil, reason: "the saved sign-in has no refresh token")
            throw ChappieClientError.missingRefreshToken
        }
        let tokens: TokenResponse
        logger(.debug, "refresh.started", ["slot": key.description])
        do {
            tokens = try await tokenEndpoint.refresh(refreshToken: refreshToken)
        } catch let failure as RefreshFailure {
            logger(.warning, "refresh.failed", ["slot": key.description, "kind": "\(failure)"])
            switch failure {
            case .terminal(let status, let code):
                let reason = "the sign-in server refused to renew the session (HTTP \(status)\(code.map { ", \($0)" } ?? ""))"
                await markTerminal(refreshToken: refreshToken, reason: reason)
                throw ChappieClientError.reauthenticationRequired(reason)
            case .transient(let message):
                throw ChappieClientError.network("could not renew the session: \(message)", mayHaveReachedServer: true)
            }
        }
        let refreshed = current.refreshed(with: tokens, at: time.now())
        if let newAccount = refreshed.accountID, let oldAccount = current.accountID, newAccount != oldAccount {
            let reason = "the renewed sign-in belongs to a different account"
            await markTerminal(refreshToken: refreshToken, reason: reason)
            throw ChappieClientError.reauthenticationRequired(reason)
        }
        // Persist before publish: a rotated refresh token that is not saved is lost for good.
        do { try await store.saveCredential(refreshed, for: key) }
        catch { throw ChappieClientError.credentialStore(Redaction.clean("\(error)")) }
        credential = refreshed
        generation += 1
        logger(.info, "refresh.succeeded", ["slot": key.description, "generation": "\(generation)"])
        return refreshed
    }

    private func markTerminal(refreshToken: String?, reason: String) async {
        terminalFailure = (refreshToken, reason)
        publish(.reauthenticationRequired(reason))
        await ReauthenticationMarker.persist(reason: reason, rejectedRefreshToken: refreshToken, store: store, key: key, logger: logger)
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
