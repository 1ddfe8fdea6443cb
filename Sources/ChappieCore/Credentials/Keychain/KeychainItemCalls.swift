import Foundation

/// The four Security framework calls the Keychain store makes, over plain ``KeychainQuery``
/// values. On Apple platforms the adapter beside ``ChappieKeychainCredentialStore`` forwards them
/// to `SecItemCopyMatching`, `SecItemAdd`, `SecItemUpdate` and `SecItemDelete`; Linux tests
/// answer them from a scripted keychain.
protocol KeychainItemCalls: Sendable {
    /// `SecItemCopyMatching(query, &result)`: the status, and the item's data when the query
    /// asked for it and the result was a `CFData`.
    func copyMatching(_ query: KeychainQuery) -> (status: KeychainStatus, data: Data?)
    /// `SecItemAdd(attributes, nil)`.
    func add(_ attributes: KeychainQuery) -> KeychainStatus
    /// `SecItemUpdate(query, changes)`.
    func update(_ query: KeychainQuery, changes: KeychainQuery) -> KeychainStatus
    /// `SecItemDelete(query)`.
    func delete(_ query: KeychainQuery) -> KeychainStatus
    /// Apple's text for a status (`SecCopyErrorMessageString`), or nil.
    func message(for status: KeychainStatus) -> String?
}
