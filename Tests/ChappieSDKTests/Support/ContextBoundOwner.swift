import Foundation
@testable import ChappieCore

/// A credential owner together with one caller's context (token endpoint, clock), so that tests
/// of a single caller read as calls on the owner.
struct ContextBoundOwner: Sendable {
    /// The owner under test.
    let owner: CredentialManager
    /// The caller's context passed to every call.
    let context: CredentialContext

    init(store: any ChappieCredentialStore, key: ChappieCredentialKey, tokenEndpoint: TokenEndpoint, time: ChappieTimeSource) {
        owner = CredentialManager(store: store, key: key)
        context = CredentialContext(tokenEndpoint: tokenEndpoint, time: time)
    }

    func authorization() async throws -> Authorization { try await owner.authorization(context) }

    func recoverFromUnauthorized(rejected: Authorization) async throws -> Authorization {
        try await owner.recoverFromUnauthorized(rejected: rejected, context)
    }

    func signOut() async throws { try await owner.signOut(context) }

    func statusUpdates() async -> AsyncStream<CredentialStatus> { await owner.statusUpdates() }

    func currentStatus() async -> CredentialStatus { await owner.currentStatus() }

    func adopt(_ credential: ChappieCredential) async throws { try await owner.adopt(credential) }
}
