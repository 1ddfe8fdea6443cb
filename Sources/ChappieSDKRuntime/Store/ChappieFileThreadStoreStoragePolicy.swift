/// How a ``ChappieFileThreadStore`` stores its files: data protection and backup exclusion on
/// Apple platforms, and a cap on the bytes all threads may use.
///
/// On Linux the protection and backup settings have no effect; files are always created with
/// mode 0600 in a 0700 folder.
public struct ChappieFileThreadStoreStoragePolicy: Sendable, Hashable {
    /// The Data Protection class of thread files (iOS, iPadOS, watchOS, tvOS, visionOS; ignored
    /// elsewhere).
    public enum FileProtection: String, Sendable, Hashable, Codable {
        /// Readable only while the device is unlocked (`NSFileProtectionComplete`): the default.
        /// A turn that finishes while the device is locked cannot be saved.
        case complete
        /// Readable after the first unlock since boot
        /// (`NSFileProtectionCompleteUntilFirstUserAuthentication`); use it when threads must be
        /// saved in the background.
        case completeUntilFirstUserAuthentication
    }

    /// The default cap: 256 MiB (268,435,456 bytes).
    public static let defaultByteCap = 256 << 20

    /// The Data Protection class of thread files.
    public var fileProtection: FileProtection
    /// Whether the thread folder is excluded from iCloud and device backups (Apple platforms).
    public var excludesFromBackup: Bool
    /// The most bytes all thread files together may use. A save that would exceed it fails with
    /// ``ChappieThreadStoreError/byteCapExceeded(bytesNeeded:bytesUsed:byteCap:)`` and changes
    /// nothing.
    public var byteCap: Int

    /// Creates a policy.
    /// - Parameters:
    ///   - fileProtection: the Data Protection class (default ``FileProtection/complete``).
    ///   - excludesFromBackup: exclude the folder from backups (default true: conversations
    ///     stay on the device).
    ///   - byteCap: the cap in bytes (default ``defaultByteCap``); values below 0 count as 0.
    public init(fileProtection: FileProtection = .complete, excludesFromBackup: Bool = true, byteCap: Int = defaultByteCap) {
        self.fileProtection = fileProtection
        self.excludesFromBackup = excludesFromBackup
        self.byteCap = max(0, byteCap)
    }

    /// ``FileProtection/complete``, excluded from backup, ``defaultByteCap``.
    public static let `default` = ChappieFileThreadStoreStoragePolicy()
}
