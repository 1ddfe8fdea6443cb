import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Saves a killed process left behind. A save writes `.<file>.<UUID>.tmp` beside the credential,
/// `fsync`s it and renames it over the file; a process killed between the `fsync` and the rename
/// leaves a complete temporary file holding the newest credential (a rotated refresh token that
/// the issuer already considers the current one). The next read recovers it: when no process
/// holds the slot's lock (so no save is under way), the newest complete leftover that is newer
/// than the file replaces it, and every other leftover is removed.
extension ChappieFileCredentialStore {
    /// The temporary file name of a save of `file`.
    static func temporaryName(for file: URL) -> String {
        "." + file.lastPathComponent + "." + UUID().uuidString + Wire.temporarySuffix
    }

    /// The refresh lock file of `key` in its `folder`.
    func lockPath(for key: ChappieCredentialKey, in folder: URL) -> String {
        folder.appending(path: Self.safeName(key.account) + Wire.lockSuffix).path
    }

    /// Paths of the temporary files of `key`'s saves now in its folder.
    func leftoverSaves(for key: ChappieCredentialKey) -> [String] {
        let file = fileURL(for: key)
        let folder = file.deletingLastPathComponent()
        let prefix = "." + file.lastPathComponent + "."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(Wire.temporarySuffix) }.map { folder.appending(path: $0).path }
    }

    /// Recovers (see the extension's documentation) the leftover saves of `key` in `folder`, best
    /// effort: a folder that cannot be listed or a lock that another holder has leaves everything
    /// as it is.
    func recoverLeftoverSave(for key: ChappieCredentialKey, in folder: URL) {
        guard !leftoverSaves(for: key).isEmpty else { return }
        _ = try? AdvisoryFileLock.withLockIfFree(path: lockPath(for: key, in: folder)) {
            let target = fileURL(for: key).path
            var newest: (path: String, credential: ChappieCredential)?
            for path in leftoverSaves(for: key) {
                // A damaged, foreign or unsafe leftover is only removed.
                guard let credential = try? readFile(path) else {
                    unlink(path)
                    continue
                }
                if let best = newest, best.credential.obtainedAt >= credential.obtainedAt {
                    unlink(path)
                    continue
                }
                if let best = newest { unlink(best.path) }
                newest = (path, credential)
            }
            guard let newest else { return }
            if let current = try? readFile(target), current.obtainedAt >= newest.credential.obtainedAt {
                unlink(newest.path)
                return
            }
            if rename(newest.path, target) == 0 { syncFolder(folder.path) } else { unlink(newest.path) }
        }
    }

    private enum Wire {
        static let temporarySuffix = ".tmp"
        static let lockSuffix = ".lock"
    }
}
