import Foundation

/// The Apple-only parts of ``ChappieFileThreadStoreStoragePolicy``: backup exclusion and Data
/// Protection. Both do nothing on Linux. (This file's Apple branches cannot be compiled on the
/// Linux build machines; they are kept to two calls each.)
enum ThreadStoragePlatform {
    /// Excludes the thread folder from backups when the policy says so.
    static func applyFolderPolicy(_ policy: ChappieFileThreadStoreStoragePolicy, path: String) throws {
        #if canImport(Darwin)
        var url = URL(fileURLWithPath: path, isDirectory: true)
        var values = URLResourceValues()
        values.isExcludedFromBackup = policy.excludesFromBackup
        try url.setResourceValues(values)
        #endif
    }

    /// Gives a freshly written file the policy's Data Protection class (before it is renamed
    /// into place).
    static func applyFilePolicy(_ policy: ChappieFileThreadStoreStoragePolicy, path: String) throws {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        let protection: FileProtectionType = switch policy.fileProtection {
        case .complete: .complete
        case .completeUntilFirstUserAuthentication: .completeUntilFirstUserAuthentication
        }
        try FileManager.default.setAttributes([.protectionKey: protection], ofItemAtPath: path)
        #endif
    }
}
