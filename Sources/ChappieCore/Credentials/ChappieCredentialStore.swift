import Foundation

/// Persists one credential per (service, account).
///
/// Implementations: ``ChappieFileCredentialStore`` (Linux default), ``ChappieInMemoryCredentialStore``
/// (tests), the Keychain store on Apple platforms and the Secret Service store on Linux desktops. Every method may be called from any task.
public protocol ChappieCredentialStore: Sendable {
    /// A stable name for the storage location. Two store values with the same identity share
    /// credentials, and the SDK runs one refresh at a time per (identity, key).
    var identity: String { get }
    /// Returns the stored credential, or nil when the slot is empty.
    /// Throws ``ChappieCredentialStoreError`` when the slot exists but cannot be read safely.
    func loadCredential(for key: ChappieCredentialKey) async throws -> ChappieCredential?
    /// Reads the credential without suspending, for stores that can do so cheaply (the Keychain,
    /// memory), so ``ChappieAuthSession`` knows a returning user before the app's first frame.
    /// The default returns ``ChappieSynchronousCredentialLoad/unsupported``: the session then
    /// shows ``ChappieAuthState/restoring`` until ``loadCredential(for:)`` answers.
    /// Throws what ``loadCredential(for:)`` throws.
    func loadCredentialSynchronously(for key: ChappieCredentialKey) throws -> ChappieSynchronousCredentialLoad
    /// Stores `credential`, replacing any previous one atomically.
    /// Throws ``ChappieCredentialStoreError`` when it cannot be written.
    func saveCredential(_ credential: ChappieCredential, for key: ChappieCredentialKey) async throws
    /// Removes the credential; removing an empty slot is not an error.
    /// Throws ``ChappieCredentialStoreError`` when it cannot be removed.
    func deleteCredential(for key: ChappieCredentialKey) async throws
    /// Runs `body` while holding a lock that other processes sharing this store also take before
    /// spending a refresh token, so two processes never spend the same one. The default runs
    /// `body` without a lock (a store private to one process needs none).
    /// Rethrows `body`'s error; throws ``ChappieCredentialStoreError`` when the lock cannot be taken.
    func withRefreshLock<Result: Sendable>(for key: ChappieCredentialKey, _ body: @Sendable () async throws -> Result) async throws -> Result
}

extension ChappieCredentialStore {
    /// Reports that this store reads only asynchronously.
    public func loadCredentialSynchronously(for key: ChappieCredentialKey) throws -> ChappieSynchronousCredentialLoad {
        .unsupported
    }

    /// Runs `body` without a cross-process lock.
    public func withRefreshLock<Result: Sendable>(for key: ChappieCredentialKey, _ body: @Sendable () async throws -> Result) async throws -> Result {
        try await body()
    }
}

/// The answer of ``ChappieCredentialStore/loadCredentialSynchronously(for:)``.
public enum ChappieSynchronousCredentialLoad: Sendable, Equatable {
    /// The store reads only asynchronously; use ``ChappieCredentialStore/loadCredential(for:)``.
    case unsupported
    /// The slot was read: its credential, or nil when it is empty.
    case loaded(ChappieCredential?)
}

/// Why a credential store could not do its job. Messages never contain a token.
public enum ChappieCredentialStoreError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The stored data is not a credential (damaged or foreign file).
    case corrupt(String)
    /// The file or folder can be read by other users, or is not owned by this user; it was not used.
    case insecurePermissions(String)
    /// The path is a symbolic link; it was not followed.
    case symbolicLinkRefused(String)
    /// A folder above the credential (`path`) could let another user swap it or plant files in
    /// it; `reason` says why (owner, mode) and how to fix it. Nothing was read or written.
    case insecureFolder(path: String, reason: String)
    /// An operating-system error, with its message.
    case io(String)
    /// The system credential service cannot be used: its library is not installed, it is not
    /// running (no D-Bus session, no Secret Service, a locked device), or it refused the request.
    /// Nothing was read or written; an app may fall back to another store. The message says which.
    case unavailable(String)

    /// A one-line description.
    public var description: String {
        switch self {
        case .corrupt(let detail): "stored credential is unreadable: \(detail)"
        case .insecurePermissions(let path): "credential file \(path) is accessible to, or owned by, other users; refusing to use it"
        case .insecureFolder(let path, let reason): "credential folder \(path) \(reason); refusing to use it"
        case .symbolicLinkRefused(let path): "credential path \(path) is a symbolic link; refusing to follow it"
        case .io(let detail): "credential store I/O failed: \(detail)"
        case .unavailable(let detail): "credential store unavailable: \(detail)"
        }
    }

    /// The same sentence as ``description``, so `localizedDescription` says what failed and why
    /// (not a bare "error 4").
    public var errorDescription: String? { description }

    /// What the user can do about it, one sentence; it never contains a token.
    public var recoverySuggestion: String? {
        switch self {
        case .corrupt: "Sign in again to replace the saved sign-in."
        case .insecurePermissions: "Make the file and its folder readable by you alone (chmod 600 for the file, 700 for folders), then try again."
        case .symbolicLinkRefused: "Replace the symbolic link with a plain file or folder, then try again."
        case .insecureFolder: "Fix the folder's owner or permissions as the message says, then try again."
        case .io: "Check that the disk is writable and has free space, then try again."
        case .unavailable: "Start or unlock the system's credential service, or use another credential store."
        }
    }
}
