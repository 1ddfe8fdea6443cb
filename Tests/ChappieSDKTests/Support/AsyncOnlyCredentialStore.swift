import Foundation
@testable import ChappieCore

/// A credential store that reads only asynchronously (like a keyring over D-Bus): an in-memory
/// store without the synchronous read.
struct AsyncOnlyCredentialStore: ChappieCredentialStore {
    private let inner = ChappieInMemoryCredentialStore()

    var identity: String { "async-only:" + inner.identity }

    func loadCredential(for key: ChappieCredentialKey) async throws -> ChappieCredential? { try await inner.loadCredential(for: key) }

    func saveCredential(_ credential: ChappieCredential, for key: ChappieCredentialKey) async throws {
        try await inner.saveCredential(credential, for: key)
    }

    func deleteCredential(for key: ChappieCredentialKey) async throws { try await inner.deleteCredential(for: key) }
}
