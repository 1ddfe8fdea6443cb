import ChappieTransport
import Foundation

/// A credential store that keeps everything in memory: for tests and previews. It reads
/// synchronously too, so a session over it knows its state at once.
public final class ChappieInMemoryCredentialStore: ChappieCredentialStore {
    private let credentials = LockedBox<[ChappieCredentialKey: ChappieCredential]>([:])
    /// A unique identity per instance.
    public let identity = "memory:\(UUID().uuidString)"

    /// Creates an empty store.
    public init() {}

    /// Returns the credential for `key`, if any. Never throws.
    public func loadCredential(for key: ChappieCredentialKey) async throws -> ChappieCredential? {
        credentials.withLock { $0[key] }
    }
    /// Returns the credential for `key`, if any, without suspending. Never throws.
    public func loadCredentialSynchronously(for key: ChappieCredentialKey) throws -> ChappieSynchronousCredentialLoad {
        .loaded(credentials.withLock { $0[key] })
    }
    /// Stores `credential` for `key`. Never throws.
    public func saveCredential(_ credential: ChappieCredential, for key: ChappieCredentialKey) async throws {
        credentials.withLock { $0[key] = credential }
    }
    /// Removes the credential for `key`. Never throws.
    public func deleteCredential(for key: ChappieCredentialKey) async throws {
        credentials.withLock { $0[key] = nil }
    }
}
