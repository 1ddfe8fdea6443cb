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
/// Reads are synchronous (``loadCredentialSynchronously(for:)``), so a ``ChappieAuthSession``
/// knows a returning user in its initializer.
///
/// Errors are ``ChappieCredentialStoreError``: `.unavailable` when the Keychain cannot be used
/// right now (device locked, missing entitlement, keychain access refused), `.corrupt` for an
/// item that is not a credential, `.io` for any other Keychain status. Messages carry the
/// `OSStatus` and Apple's text for it, never item data.
///
/// Which query each call sends and what each status means live in platform-independent code
/// that the Linux tests cover; this type only translates them to the Security framework
/// (type-checked for iOS and macOS, see APPLE-PLATFORMS.md).
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
        try items.load(for: key)
    }

    /// Reads the item at once (a Keychain read does not suspend). Throws as ``loadCredential(for:)``.
    public func loadCredentialSynchronously(for key: ChappieCredentialKey) throws -> ChappieSynchronousCredentialLoad {
        .loaded(try items.load(for: key))
    }

    /// Adds the item, or replaces its data and accessibility when it exists. Throws
    /// ``ChappieCredentialStoreError``: `.unavailable` while the device is locked or without the
    /// Keychain entitlement, `.io` otherwise.
    public func saveCredential(_ credential: ChappieCredential, for key: ChappieCredentialKey) async throws {
        try items.save(credential, for: key)
    }

    /// Deletes the item; a missing item is not an error. Throws ``ChappieCredentialStoreError``:
    /// `.unavailable` while the device is locked, `.io` otherwise.
    public func deleteCredential(for key: ChappieCredentialKey) async throws {
        try items.delete(for: key)
    }

    /// The store's logic over the real Security calls.
    private var items: KeychainCredentialItems {
        #if os(macOS)
        let isMacOS = true
        #else
        let isMacOS = false
        #endif
        return KeychainCredentialItems(accessGroup: accessGroup, accessibility: accessibility,
                                       usesDataProtectionKeychain: usesDataProtectionKeychain, isMacOS: isMacOS,
                                       calls: SecurityFrameworkKeychain())
    }
}

/// ``KeychainItemCalls`` over the Security framework: each ``KeychainQuery`` becomes the
/// `CFDictionary` of the real `kSec…` constants, one to one.
struct SecurityFrameworkKeychain: KeychainItemCalls {
    /// Creates the adapter; debug builds check that ``KeychainStatus``'s numbers are the SDK's.
    init() {
        assert(KeychainStatus.success.rawValue == errSecSuccess && KeychainStatus.itemNotFound.rawValue == errSecItemNotFound
            && KeychainStatus.duplicateItem.rawValue == errSecDuplicateItem
            && KeychainStatus.interactionNotAllowed.rawValue == errSecInteractionNotAllowed
            && KeychainStatus.missingEntitlement.rawValue == errSecMissingEntitlement
            && KeychainStatus.notAvailable.rawValue == errSecNotAvailable && KeychainStatus.userCanceled.rawValue == errSecUserCanceled
            && KeychainStatus.authFailed.rawValue == errSecAuthFailed, "KeychainStatus disagrees with SecBase.h")
    }

    func copyMatching(_ query: KeychainQuery) -> (status: KeychainStatus, data: Data?) {
        var result: CFTypeRef?
        let status = SecItemCopyMatching(Self.dictionary(query), &result)
        return (KeychainStatus(rawValue: status), result as? Data)
    }

    func add(_ attributes: KeychainQuery) -> KeychainStatus {
        KeychainStatus(rawValue: SecItemAdd(Self.dictionary(attributes), nil))
    }

    func update(_ query: KeychainQuery, changes: KeychainQuery) -> KeychainStatus {
        KeychainStatus(rawValue: SecItemUpdate(Self.dictionary(query), Self.dictionary(changes)))
    }

    func delete(_ query: KeychainQuery) -> KeychainStatus {
        KeychainStatus(rawValue: SecItemDelete(Self.dictionary(query)))
    }

    func message(for status: KeychainStatus) -> String? {
        SecCopyErrorMessageString(status.rawValue, nil).map { $0 as String }
    }

    /// The query as the Security framework takes it.
    static func dictionary(_ query: KeychainQuery) -> CFDictionary {
        var dictionary: [String: Any] = [:]
        for (attribute, value) in query.attributes {
            dictionary[key(attribute) as String] = object(value)
        }
        return dictionary as CFDictionary
    }

    private static func key(_ attribute: KeychainAttribute) -> CFString {
        switch attribute {
        case .itemClass: kSecClass
        case .service: kSecAttrService
        case .account: kSecAttrAccount
        case .accessGroup: kSecAttrAccessGroup
        case .synchronizable: kSecAttrSynchronizable
        case .accessible: kSecAttrAccessible
        case .useDataProtectionKeychain: kSecUseDataProtectionKeychain
        case .returnData: kSecReturnData
        case .matchLimit: kSecMatchLimit
        case .valueData: kSecValueData
        }
    }

    private static func object(_ value: KeychainValue) -> Any {
        switch value {
        case .string(let text): text
        case .bool(let flag): flag ? kCFBooleanTrue as Any : kCFBooleanFalse as Any
        case .data(let bytes): bytes
        case .constant(let constant): constantValue(constant)
        }
    }

    private static func constantValue(_ constant: KeychainConstant) -> CFString {
        switch constant {
        case .genericPassword: kSecClassGenericPassword
        case .matchLimitOne: kSecMatchLimitOne
        case .accessibleWhenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        case .accessibleAfterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        }
    }
}
#endif
