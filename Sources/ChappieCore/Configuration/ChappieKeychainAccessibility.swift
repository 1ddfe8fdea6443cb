/// When the stored credential may be read (Security framework `kSecAttrAccessible…` values).
///
/// Both choices keep the credential on this device: it never syncs to iCloud Keychain and is never
/// restored from a backup onto another device. Linux stores ignore it.
public enum ChappieKeychainAccessibility: String, Sendable, Hashable, Codable {
    /// Readable only while the device is unlocked (the default and the recommended choice).
    case whenUnlockedThisDeviceOnly
    /// Readable after the first unlock following a reboot, e.g. for background refresh.
    case afterFirstUnlockThisDeviceOnly
}
