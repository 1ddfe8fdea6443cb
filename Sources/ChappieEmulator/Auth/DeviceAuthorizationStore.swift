import Foundation

/// Device codes issued by `/api/accounts/deviceauth/usercode` and their state (PROTOCOL §1.1–1.2).
actor DeviceAuthorizationStore {
    /// Where one device code stands.
    enum Status: Sendable, Equatable {
        /// Waiting for the user.
        case pending
        /// Approved; the poll hands out this server-generated PKCE pair and code.
        case approved(PKCEGrant)
        /// Denied by the user.
        case denied
        /// Past its lifetime, or expired by a test.
        case expired
    }

    /// The authorization code and server-generated PKCE pair of an approved device code.
    struct PKCEGrant: Sendable, Equatable {
        /// The one-time authorization code.
        var authorizationCode: String
        /// base64url(SHA-256(verifier)).
        var codeChallenge: String
        /// The PKCE verifier the client echoes to `/oauth/token`.
        var codeVerifier: String
    }

    /// One issued device code.
    struct Entry: Sendable {
        /// Opaque `deviceauth_…` id.
        var deviceAuthID: String
        /// The human-typed code, `ABCD-EFGH1` style.
        var userCode: String
        /// When the code stops working.
        var expiresAt: Date
        /// Pending polls answered so far.
        var polls: Int
        /// Current state.
        var status: Status
    }

    /// The answer to one poll.
    enum PollOutcome: Sendable, Equatable {
        /// No code with this id (or the user code does not match it).
        case unknown
        /// Still waiting.
        case pending
        /// Approved: hand out the grant.
        case approved(PKCEGrant)
        /// The user said no.
        case denied
        /// Too late.
        case expired
    }

    private let lifetime: TimeInterval
    private let autoApproveAfterPolls: Int?
    private var entries = [String: Entry]()
    private var issuedUserCodes = [String]()
    private var deliveredCount = 0
    private var waiters = [CheckedContinuation<String?, Never>]()
    private var finished = false

    /// Creates a store; `lifetime` in seconds.
    init(lifetime: Int, autoApproveAfterPolls: Int?) {
        self.lifetime = TimeInterval(lifetime)
        self.autoApproveAfterPolls = autoApproveAfterPolls
    }

    /// Issues a new device code and wakes one waiter of ``nextUserCode()``.
    func create() -> Entry {
        let entry = Entry(
            deviceAuthID: RandomIdentifier.prefixed("deviceauth_", hexCount: 24),
            userCode: RandomIdentifier.userCode(),
            expiresAt: Date().addingTimeInterval(lifetime),
            polls: 0,
            status: .pending
        )
        entries[entry.deviceAuthID] = entry
        issuedUserCodes.append(entry.userCode)
        if !waiters.isEmpty {
            let waiter = waiters.removeFirst()
            deliveredCount += 1
            waiter.resume(returning: entry.userCode)
        }
        return entry
    }

    /// Returns the next user code in issue order that no earlier call returned, waiting for one
    /// to be issued if needed; nil once the emulator has shut down.
    func nextUserCode() async -> String? {
        if deliveredCount < issuedUserCodes.count {
            deliveredCount += 1
            return issuedUserCodes[deliveredCount - 1]
        }
        if finished { return nil }
        return await withCheckedContinuation { waiters.append($0) }
    }

    /// Releases every waiter of ``nextUserCode()`` with nil (on shutdown).
    func finishWaiters() {
        finished = true
        let pending = waiters
        waiters.removeAll()
        for waiter in pending { waiter.resume(returning: nil) }
    }

    /// Answers a poll for `deviceAuthID` + `userCode`, counting pending polls toward auto-approval.
    func poll(deviceAuthID: String, userCode: String) -> PollOutcome {
        guard var entry = entries[deviceAuthID], entry.userCode == userCode else { return .unknown }
        if entry.status == .pending, Date() >= entry.expiresAt { entry.status = .expired }
        if entry.status == .pending, let limit = autoApproveAfterPolls, entry.polls >= limit {
            entry.status = .approved(Self.makeGrant())
        }
        let outcome: PollOutcome
        switch entry.status {
        case .pending:
            entry.polls += 1
            outcome = .pending
        case .approved(let grant): outcome = .approved(grant)
        case .denied: outcome = .denied
        case .expired: outcome = .expired
        }
        entries[deviceAuthID] = entry
        return outcome
    }

    /// Approves a pending `userCode` (case-insensitive); false when unknown or no longer pending.
    func approve(userCode: String) -> Bool {
        transition(userCode: userCode) { _ in .approved(Self.makeGrant()) }
    }

    /// Denies a pending `userCode`; false when unknown or no longer pending.
    func deny(userCode: String) -> Bool {
        transition(userCode: userCode) { _ in .denied }
    }

    /// Expires `userCode` at once (pending or approved but not yet redeemed); false when unknown.
    func expire(userCode: String) -> Bool {
        guard let key = key(for: userCode) else { return false }
        entries[key]?.status = .expired
        return true
    }

    private func transition(userCode: String, to next: (Entry) -> Status) -> Bool {
        guard let key = key(for: userCode), let entry = entries[key], entry.status == .pending else { return false }
        if Date() >= entry.expiresAt {
            entries[key]?.status = .expired
            return false
        }
        entries[key]?.status = next(entry)
        return true
    }

    private func key(for userCode: String) -> String? {
        let wanted = userCode.trimmingCharacters(in: .whitespaces).uppercased()
        return entries.first { $0.value.userCode == wanted }?.key
    }

    private static func makeGrant() -> PKCEGrant {
        let verifier = Base64URL.encode(RandomIdentifier.bytes(64))
        return PKCEGrant(
            authorizationCode: "ac_" + Base64URL.encode(RandomIdentifier.bytes(32)),
            codeChallenge: Base64URL.encode(SHA256.digest(Array(verifier.utf8))),
            codeVerifier: verifier
        )
    }
}
