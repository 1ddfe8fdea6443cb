import Foundation

/// A credential store that keeps everything in memory: for tests and previews.
public actor ChappieInMemoryCredentialStore: ChappieCredentialStore {
    private var credentials: [ChappieCredentialKey: ChappieCredential] = [:]
    /// A unique identity per instance.
    public nonisolated let identity = "memory:\(UUID().uuidString)"

    /// Creates an empty store.
    public init() {}

    /// Returns the credential for `key`, if any. Never throws.
    public func loadCredential(for key: ChappieCredentialKey) async throws -> ChappieCredential? { credentials[key] }
    /// Stores `credential` for `key`. Never throws.
    public func saveCredential(_ credential: ChappieCredential, for key: ChappieCredentialKey) async throws {
        credentials[key] = credential
    }
    /// Removes the credential for `key`. Never throws.
    public func deleteCredential(for key: ChappieCredentialKey) async throws { credentials[key] = nil }
}
