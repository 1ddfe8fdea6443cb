import ChappieTransport

/// An `OSStatus` returned by a `SecItem…` call, with the codes the Keychain store handles and
/// what each one means for the caller. Values from `SecBase.h` (iOS 17 / macOS 14 SDK).
struct KeychainStatus: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The `OSStatus`.
    var rawValue: Int32

    /// Wraps an `OSStatus`.
    init(rawValue: Int32) { self.rawValue = rawValue }

    /// `errSecSuccess`.
    static let success = KeychainStatus(rawValue: 0)
    /// `errSecItemNotFound`: no such item (an empty slot, not an error for a read or delete).
    static let itemNotFound = KeychainStatus(rawValue: -25300)
    /// `errSecDuplicateItem`: an add raced another writer; the store updates instead.
    static let duplicateItem = KeychainStatus(rawValue: -25299)
    /// `errSecInteractionNotAllowed`: the device is locked and the item's accessibility forbids
    /// reading it now (for example a launch in the background before the first unlock).
    static let interactionNotAllowed = KeychainStatus(rawValue: -25308)
    /// `errSecMissingEntitlement`: the app is not signed with a Keychain entitlement (or the
    /// access group is not one of its groups).
    static let missingEntitlement = KeychainStatus(rawValue: -34018)
    /// `errSecNotAvailable`: no keychain is available (macOS).
    static let notAvailable = KeychainStatus(rawValue: -25291)
    /// `errSecUserCanceled`: the user dismissed the keychain's password prompt (macOS login keychain).
    static let userCanceled = KeychainStatus(rawValue: -128)
    /// `errSecAuthFailed`: the user did not unlock the keychain (macOS login keychain).
    static let authFailed = KeychainStatus(rawValue: -25293)

    /// The status number.
    var description: String { "\(rawValue)" }

    /// The store error for this (failed) status during `operation`.
    ///
    /// The Keychain cannot be used right now, but nothing is wrong with the item, for
    /// ``interactionNotAllowed``, ``missingEntitlement``, ``notAvailable``, ``userCanceled`` and
    /// ``authFailed``: those become ``ChappieCredentialStoreError/unavailable(_:)`` (an app may
    /// retry later or fall back to another store). Every other status is
    /// ``ChappieCredentialStoreError/io(_:)``. The message carries the operation, the status and
    /// `message` (Apple's text for the status, from `SecCopyErrorMessageString`), never item data.
    func storeError(during operation: KeychainOperation, message: String?) -> ChappieCredentialStoreError {
        let text = message.map { Redaction.clean($0, maximumBytes: 160) } ?? "no message"
        let detail = "Keychain \(operation.rawValue) failed with status \(rawValue) (\(text))"
        switch self {
        case .interactionNotAllowed:
            return .unavailable(detail + "; the device is locked and the item's accessibility does not allow reading now")
        case .missingEntitlement:
            return .unavailable(detail + "; the app is not signed with a Keychain entitlement for this access group")
        case .notAvailable:
            return .unavailable(detail + "; no keychain is available")
        case .userCanceled, .authFailed:
            return .unavailable(detail + "; the user did not allow access to the keychain")
        default:
            return .io(detail)
        }
    }
}

/// The four Keychain calls, named for messages.
enum KeychainOperation: String, Sendable, Hashable, CaseIterable {
    /// `SecItemCopyMatching`.
    case read
    /// `SecItemAdd`.
    case add
    /// `SecItemUpdate`.
    case update
    /// `SecItemDelete`.
    case delete
}
