import Foundation

/// The dictionary one Security framework call receives (`SecItemCopyMatching`, `SecItemAdd`,
/// `SecItemUpdate`, `SecItemDelete`), as plain values, so the Keychain store's queries are built
/// and tested on every platform. The Apple-only adapter translates it key by key into the
/// `CFDictionary` of real `kSec…` constants; nothing else happens there.
struct KeychainQuery: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Attribute to value.
    var attributes: [KeychainAttribute: KeychainValue]

    /// Creates a query from attribute-value pairs.
    init(_ attributes: [KeychainAttribute: KeychainValue] = [:]) {
        self.attributes = attributes
    }

    /// The value of one attribute, or nil.
    subscript(attribute: KeychainAttribute) -> KeychainValue? {
        get { attributes[attribute] }
        set { attributes[attribute] = newValue }
    }

    /// The same query keyed by the Security constants' names, e.g. `"kSecClass"`, as Apple's
    /// documentation spells it.
    var named: [String: KeychainValue] {
        Dictionary(uniqueKeysWithValues: attributes.map { ($0.key.rawValue, $0.value) })
    }

    /// This query with `other`'s attributes added (other's win on a clash).
    func merging(_ other: KeychainQuery) -> KeychainQuery {
        KeychainQuery(attributes.merging(other.attributes) { _, new in new })
    }

    /// The attributes in name order; item data shows only its size.
    var description: String {
        "[" + named.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "]"
    }
    /// Same as ``description``.
    var debugDescription: String { description }
    /// A mirror whose children are the attributes, with item data shown only by its size.
    var customMirror: Mirror {
        Mirror(self, children: named.sorted { $0.key < $1.key }.map { (label: $0.key, value: $0.value.description as Any) })
    }
}

/// The Security framework keys the Keychain store uses, named as in `SecItem.h`.
enum KeychainAttribute: String, Sendable, Hashable, CaseIterable {
    /// `kSecClass`: the item class.
    case itemClass = "kSecClass"
    /// `kSecAttrService`: the generic password's service.
    case service = "kSecAttrService"
    /// `kSecAttrAccount`: the generic password's account.
    case account = "kSecAttrAccount"
    /// `kSecAttrAccessGroup`: the Keychain access group.
    case accessGroup = "kSecAttrAccessGroup"
    /// `kSecAttrSynchronizable`: whether the item syncs through iCloud Keychain.
    case synchronizable = "kSecAttrSynchronizable"
    /// `kSecAttrAccessible`: when the item may be read.
    case accessible = "kSecAttrAccessible"
    /// `kSecUseDataProtectionKeychain`: macOS, use the data-protection keychain.
    case useDataProtectionKeychain = "kSecUseDataProtectionKeychain"
    /// `kSecReturnData`: return the item's data.
    case returnData = "kSecReturnData"
    /// `kSecMatchLimit`: how many items a search returns.
    case matchLimit = "kSecMatchLimit"
    /// `kSecValueData`: the item's data (the credential JSON).
    case valueData = "kSecValueData"
}

/// The Security framework constants used as values, named as in `SecItem.h`.
enum KeychainConstant: String, Sendable, Hashable, CaseIterable {
    /// `kSecClassGenericPassword`.
    case genericPassword = "kSecClassGenericPassword"
    /// `kSecMatchLimitOne`.
    case matchLimitOne = "kSecMatchLimitOne"
    /// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`.
    case accessibleWhenUnlockedThisDeviceOnly = "kSecAttrAccessibleWhenUnlockedThisDeviceOnly"
    /// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`.
    case accessibleAfterFirstUnlockThisDeviceOnly = "kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly"

    /// The `kSecAttrAccessible…` class for an accessibility setting (both are `…ThisDeviceOnly`).
    init(_ accessibility: ChappieKeychainAccessibility) {
        switch accessibility {
        case .whenUnlockedThisDeviceOnly: self = .accessibleWhenUnlockedThisDeviceOnly
        case .afterFirstUnlockThisDeviceOnly: self = .accessibleAfterFirstUnlockThisDeviceOnly
        }
    }
}

/// One value of a ``KeychainQuery``. Item data (the credential JSON, which holds tokens) prints
/// only its size.
enum KeychainValue: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// A string, e.g. the service.
    case string(String)
    /// A boolean (`kCFBooleanTrue` / `kCFBooleanFalse`).
    case bool(Bool)
    /// Bytes (`CFData`): the item data.
    case data(Data)
    /// A Security constant.
    case constant(KeychainConstant)

    /// The value, with data shown as its size only.
    var description: String {
        switch self {
        case .string(let text): "\"\(text)\""
        case .bool(let flag): flag ? "true" : "false"
        case .data(let bytes): "<\(bytes.count) bytes>"
        case .constant(let constant): constant.rawValue
        }
    }
    /// Same as ``description``.
    var debugDescription: String { description }
    /// A mirror that shows ``description`` only.
    var customMirror: Mirror { Mirror(self, children: ["value": description]) }
}
