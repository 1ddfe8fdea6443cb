import Foundation

/// The Keychain store's behaviour, on every platform: which query each operation sends, what
/// each returned status means, and the add-or-update loop of a save. The Security calls
/// themselves are injected (``KeychainItemCalls``), so Linux tests cover all of it and the
/// Apple-only ``ChappieKeychainCredentialStore`` is a thin translation.
///
/// One credential is one generic-password item: `kSecAttrService` and `kSecAttrAccount` are the
/// ``ChappieCredentialKey``'s service and account, `kSecValueData` is the credential's JSON, it
/// lives in ``accessGroup`` (the app's own when nil), it is never synchronizable (matched and
/// created with `kSecAttrSynchronizable = false`), and its `kSecAttrAccessible` class, one of the
/// two `…ThisDeviceOnly` classes, is written on every add and update (so a changed
/// ``accessibility`` migrates the item on its next save). On macOS the data-protection keychain
/// is used when ``usesDataProtectionKeychain`` is true.
struct KeychainCredentialItems: Sendable {
    /// The Keychain access group, or nil for the app's own.
    var accessGroup: String?
    /// When the item may be read.
    var accessibility: ChappieKeychainAccessibility
    /// Whether to add `kSecUseDataProtectionKeychain` (honoured only when ``isMacOS``).
    var usesDataProtectionKeychain: Bool
    /// Whether the queries are for macOS (the only platform with a second, file-based keychain).
    var isMacOS: Bool
    /// The Security calls.
    var calls: any KeychainItemCalls

    /// The attributes that identify the item for `key`, shared by every call.
    func itemQuery(for key: ChappieCredentialKey) -> KeychainQuery {
        var query = KeychainQuery([
            .itemClass: .constant(.genericPassword),
            .service: .string(key.service),
            .account: .string(key.account),
            // Never an iCloud Keychain item: matches and creates only non-synchronizable items.
            .synchronizable: .bool(false),
        ])
        if let accessGroup { query[.accessGroup] = .string(accessGroup) }
        if isMacOS && usesDataProtectionKeychain { query[.useDataProtectionKeychain] = .bool(true) }
        return query
    }

    /// The `SecItemCopyMatching` query: the item, returning its data, at most one.
    func readQuery(for key: ChappieCredentialKey) -> KeychainQuery {
        itemQuery(for: key).merging(KeychainQuery([.returnData: .bool(true), .matchLimit: .constant(.matchLimitOne)]))
    }

    /// The attributes a save writes: the data and the accessibility class.
    func changes(storing data: Data) -> KeychainQuery {
        KeychainQuery([.valueData: .data(data), .accessible: .constant(KeychainConstant(accessibility))])
    }

    /// Reads the item: the credential, or nil when there is none (`errSecItemNotFound`).
    /// Throws ``ChappieCredentialStoreError``: as ``KeychainStatus/storeError(during:message:)``
    /// says for a failed read, `.corrupt` for an item without data or whose data is not a credential.
    func load(for key: ChappieCredentialKey) throws -> ChappieCredential? {
        let (status, data) = calls.copyMatching(readQuery(for: key))
        if status == .itemNotFound { return nil }
        guard status == .success else { throw status.storeError(during: .read, message: calls.message(for: status)) }
        guard let data else { throw ChappieCredentialStoreError.corrupt("the Keychain item for \(key) holds no data") }
        do {
            return try ChappieCredential(storageData: data)
        } catch {
            throw ChappieCredentialStoreError.corrupt("the Keychain item for \(key) is not a Chappie credential")
        }
    }

    /// Updates the item's data and accessibility, or adds the item when it is missing; when
    /// another writer added it in between (`errSecDuplicateItem`), updates again, once.
    /// Throws ``ChappieCredentialStoreError`` (see ``KeychainStatus/storeError(during:message:)``);
    /// `.io` when the race repeats.
    func save(_ credential: ChappieCredential, for key: ChappieCredentialKey) throws {
        let data: Data
        do {
            data = try credential.encodedForStorage()
        } catch {
            throw ChappieCredentialStoreError.io("the credential could not be encoded")
        }
        let query = itemQuery(for: key)
        let changes = changes(storing: data)
        for _ in 0..<2 {
            let updateStatus = calls.update(query, changes: changes)
            if updateStatus == .success { return }
            guard updateStatus == .itemNotFound else {
                throw updateStatus.storeError(during: .update, message: calls.message(for: updateStatus))
            }
            let addStatus = calls.add(query.merging(changes))
            if addStatus == .success { return }
            guard addStatus == .duplicateItem else {
                throw addStatus.storeError(during: .add, message: calls.message(for: addStatus))
            }
        }
        throw ChappieCredentialStoreError.io("Keychain save kept racing with another writer for \(key)")
    }

    /// Deletes the item; a missing item (`errSecItemNotFound`) is not an error.
    /// Throws ``ChappieCredentialStoreError`` (see ``KeychainStatus/storeError(during:message:)``).
    func delete(for key: ChappieCredentialKey) throws {
        let status = calls.delete(itemQuery(for: key))
        guard status == .success || status == .itemNotFound else {
            throw status.storeError(during: .delete, message: calls.message(for: status))
        }
    }
}
