/// Keeps "this sign-in can no longer be renewed" across launches: when the token endpoint
/// rejects a refresh token (or there is none), the credential manager writes the reason into the
/// stored credential (``ChappieCredential/reauthenticationReason``), and every later read of that
/// credential, synchronous or not, reports ``ChappieAuthState/reauthenticationRequired`` instead
/// of `.signedIn`. A new sign-in or a successful refresh stores a credential without the mark.
enum ReauthenticationMarker {
    /// Marks the credential stored for `key`, if it is still the one whose refresh token was
    /// rejected (`rejectedRefreshToken`; nil when it had none), with `reason`. A credential that
    /// changed meanwhile (a new sign-in, another process's refresh, another account) is left
    /// alone. Best effort: a store that cannot be read or written is logged, and the manager's
    /// in-memory state still reports the failure for this launch.
    static func persist(
        reason: String, rejectedRefreshToken: String?, store: any ChappieCredentialStore, key: ChappieCredentialKey, logger: Logger
    ) async {
        do {
            guard let stored = try await store.loadCredential(for: key), stored.refreshToken == rejectedRefreshToken,
                stored.reauthenticationReason != reason
            else { return }
            try await store.saveCredential(stored.markingReauthenticationRequired(reason), for: key)
        } catch {
            logger(.warning, "reauthentication.mark.failed", ["slot": key.description])
        }
    }
}

extension CredentialStatus {
    /// The status a stored credential stands for: none is `.signedOut`, a marked one (see
    /// ``ReauthenticationMarker``) is `.reauthenticationRequired` with its reason, any other is
    /// `.signedIn` with its account facts.
    init(stored credential: ChappieCredential?) {
        guard let credential else {
            self = .signedOut
            return
        }
        if let reason = credential.reauthenticationReason {
            self = .reauthenticationRequired(reason)
        } else {
            self = .signedIn(credential.accountInfo)
        }
    }
}
