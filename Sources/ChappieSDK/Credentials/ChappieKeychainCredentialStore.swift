#if canImport(Security)
import Foundation
import Security

/// Stores each credential as one generic-password Keychain item (Apple platforms only; the
/// default store there).
///
/// The item's `kSecAttrService` and `kSecAttrAccount` are the ``ChappieCredentialKey``'s service
/// and account, its data is the credential's JSON, it lives in ``accessGroup`` (the app's own when
/// nil), it is never synchronizable (no iCloud Keychain), and its accessibility is one of the two
/// `…ThisDeviceOnly` classes, so it is never restored from a backup onto another device. On macOS
/// it uses the data-protection keychain by default, the only macOS keychain that enforces
/// accessibility and access groups.
///
/// Errors are ``ChappieCredentialStoreError``: `.unavailable` when the Keychain cannot be used
/// right now (device locked, missing entitlement), `.corrupt` for an item that is not a
/// credential, `.io` for any other Keychain status. Messages carry the `OSStatus` and Apple's
/// text for it, never item data.
///
/// NOT COMPILED ON LINUX: written against the Security framework documentation and reviewed line
/// by line; see APPLE-PLATFORMS.md.
public struct ChappieKeychainCredentialStore: ChappieCredentialStore {
    /// Keychain access group shared between apps, e.g. `TEAMID.com.example.shared`; nil = the app's own.
    public let accessGroup: String?
    /// When the item may be read; applied on every save.
    public let accessibility: ChappieKeychainAccessibility
    /// macOS only: true uses the data-protection keychain (needs a signed app with a
    /// keychain-access-groups or application-identifier entitlement); false uses the file-based
    /// login keychain, e.g. for an unsigned command-line tool, where accessibility is not enforced.
    /// Ignored on iOS, tvOS, watchOS and visionOS, which have only the data-protection keychain.
    public let usesDataProtectionKeychain: Bool
    /// `keychain:<access group>`: stores in the same access group share items.
    public var identity: String { "keychain:\(accessGroup ?? "")" }

    /// Creates a store.
    /// - Parameters:
    ///   - accessGroup: the Keychain access group, or nil for the app's own.
    ///   - accessibility: when the item may be read; `.whenUnlockedThisDeviceOnly` by default.
    ///   - usesDataProtectionKeychain: macOS only; see ``usesDataProtectionKeychain``.
    public init(
        accessGroup: String? = nil,
        accessibility: ChappieKeychainAccessibility = .whenUnlockedThisDeviceOnly,
        usesDataProtectionKeychain: Bool = true
    ) {
        self.accessGroup = accessGroup
        self.accessibility = accessibility
        self.usesDataProtectionKeychain = usesDataProtectionKeychain
    }

    /// Reads the item, or nil when there is none. Throws ``ChappieCredentialStoreError``:
    /// `.unavailable` while the device is locked, `.corrupt` for damaged data, `.io` otherwise.
    public func loadCredential(for key: ChappieCredentialKey) async throws -> ChappieCredential? {
        var query = baseQuery(for: key)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess else { throw Self.error(status, while: "read") }
        guard let data = result as? Data else {
            throw ChappieCredentialStoreError.corrupt("the Keychain item for \(key) holds no data")
        }
        do {
            return try JSONDecoder().decode(ChappieCredential.self, from: data)
        } catch {
            throw ChappieCredentialStoreError.corrupt("the Keychain item for \(key) is not a Chappie credential")
        }
    }

    /// Adds the item, or replaces its data and accessibility when it exists. Throws
    /// ``ChappieCredentialStoreError``: `.unavailable` while the device is locked or without the
    /// Keychain entitlement, `.io` otherwise.
    public func saveCredential(_ credential: ChappieCredential, for key: ChappieCredentialKey) async throws {
        let data: Data
        do {
            data = try credential.encodedForStorage()
        } catch {
            throw ChappieCredentialStoreError.io("the credential could not be encoded")
        }
        let changes: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: accessibilityValue,
        ]
        // Update first, add when missing; if another task added it in between, update again.
        for _ in 0..<2 {
            let updateStatus = SecItemUpdate(baseQuery(for: key) as CFDictionary, changes as CFDictionary)
            if updateStatus == errSecSuccess { return }
            guard updateStatus == errSecItemNotFound else { throw Self.error(updateStatus, while: "update") }
            var item = baseQuery(for: key)
            item.merge(changes) { _, new in new }
            let addStatus = SecItemAdd(item as CFDictionary, nil)
            if addStatus == errSecSuccess { return }
            guard addStatus == errSecDuplicateItem else { throw Self.error(addStatus, while: "add") }
        }
        throw ChappieCredentialStoreError.io("Keychain save kept racing with another writer for \(key)")
    }

    /// Deletes the item; a missing item is not an error. Throws ``ChappieCredentialStoreError``:
    /// `.unavailable` while the device is locked, `.io` otherwise.
    public func deleteCredential(for key: ChappieCredentialKey) async throws {
        let status = SecItemDelete(baseQuery(for: key) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw Self.error(status, while: "delete") }
    }

    /// The attributes that identify this store's item for `key`, shared by every call.
    private func baseQuery(for key: ChappieCredentialKey) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: key.service,
            kSecAttrAccount as String: key.account,
            // Never an iCloud Keychain item: matches and creates only non-synchronizable items.
            kSecAttrSynchronizable as String: false,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        #if os(macOS)
        if usesDataProtectionKeychain { query[kSecUseDataProtectionKeychain as String] = true }
        #endif
        return query
    }

    private var accessibilityValue: CFString {
        switch accessibility {
        case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        }
    }

    /// A store error for a failed Keychain call, with the status and Apple's message for it.
    private static func error(_ status: OSStatus, while operation: String) -> ChappieCredentialStoreError {
        let text = SecCopyErrorMessageString(status, nil).map { $0 as String } ?? "no message"
        let detail = "Keychain \(operation) failed with status \(status) (\(Redaction.clean(text, maximumBytes: 160)))"
        switch status {
        case errSecInteractionNotAllowed:
            return .unavailable(detail + "; the device is locked and the item's accessibility does not allow reading now")
        case Wire.missingEntitlement:
            return .unavailable(detail + "; the app is not signed with a Keychain entitlement")
        default:
            return .io(detail)
        }
    }

    private enum Wire {
        /// `errSecMissingEntitlement` (SecBase.h), spelled out so older SDKs compile.
        static let missingEntitlement: OSStatus = -34018
    }
}
#endif
