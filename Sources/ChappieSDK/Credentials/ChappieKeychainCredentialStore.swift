#if canImport(Security)
import Foundation
import Security

/// Stores each credential as one generic-password Keychain item (Apple platforms only).
///
/// Service and account come from the credential key; the item is never synchronizable, and its
/// accessibility is `…ThisDeviceOnly`, so it never leaves the device. NOT COMPILED ON LINUX:
/// written against the Security framework documentation; see the notes in CHANGELOG.md.
public struct ChappieKeychainCredentialStore: ChappieCredentialStore {
    /// Keychain access group, or nil for the app's own.
    public let accessGroup: String?
    /// When the item may be read.
    public let accessibility: ChappieKeychainAccessibility
    /// `keychain:<access group>`.
    public var identity: String { "keychain:\(accessGroup ?? "")" }

    /// Creates a store.
    public init(accessGroup: String? = nil, accessibility: ChappieKeychainAccessibility = .whenUnlockedThisDeviceOnly) {
        self.accessGroup = accessGroup
        self.accessibility = accessibility
    }

    /// Reads the item. Throws ``ChappieCredentialStoreError`` when the Keychain fails or the data is damaged.
    public func loadCredential(for key: ChappieCredentialKey) async throws -> ChappieCredential? {
        var query = baseQuery(for: key)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = result as? Data else {
            throw ChappieCredentialStoreError.io("Keychain read failed with status \(status)")
        }
        do {
            return try JSONDecoder().decode(ChappieCredential.self, from: data)
        } catch {
            throw ChappieCredentialStoreError.corrupt("Keychain item is not a Chappie credential")
        }
    }

    /// Adds or replaces the item. Throws ``ChappieCredentialStoreError`` when the Keychain fails.
    public func saveCredential(_ credential: ChappieCredential, for key: ChappieCredentialKey) async throws {
        let data = try JSONEncoder().encode(credential)
        let attributes: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: accessibilityValue,
        ]
        let status = SecItemUpdate(baseQuery(for: key) as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            var item = baseQuery(for: key)
            item.merge(attributes) { _, new in new }
            let addStatus = SecItemAdd(item as CFDictionary, nil)
            guard addStatus == errSecSuccess else {
                throw ChappieCredentialStoreError.io("Keychain add failed with status \(addStatus)")
            }
        } else if status != errSecSuccess {
            throw ChappieCredentialStoreError.io("Keychain update failed with status \(status)")
        }
    }

    /// Deletes the item; a missing item is not an error. Throws ``ChappieCredentialStoreError``.
    public func deleteCredential(for key: ChappieCredentialKey) async throws {
        let status = SecItemDelete(baseQuery(for: key) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else {
            throw ChappieCredentialStoreError.io("Keychain delete failed with status \(status)")
        }
    }

    private func baseQuery(for key: ChappieCredentialKey) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: key.service,
            kSecAttrAccount as String: key.account,
            kSecAttrSynchronizable as String: kCFBooleanFalse as Any,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    private var accessibilityValue: CFString {
        switch accessibility {
        case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        }
    }
}
#endif
