import ChappieSDK
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file credential store's folder, checked before `login` asks the user to approve anything,
/// and tidied after `logout`.
enum CredentialFolderCheck {
    /// Throws ``CredentialFolderNotWritable`` when the folder of a ``ChappieFileCredentialStore``
    /// cannot be created or written: it is created (mode 0700) as the store would, and a file is
    /// made in it and removed. Other stores are not checked.
    static func ensureWritable(_ store: any ChappieCredentialStore) throws {
        guard let store = store as? ChappieFileCredentialStore else { return }
        let folder = store.directory
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CredentialFolderNotWritable(path: folder.path, reason: reason(of: error))
        }
        let probe = folder.appending(path: ".write-check-\(getpid())").path
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CredentialFolderNotWritable(path: folder.path, reason: String(cString: strerror(errno)))
        }
        close(descriptor)
        unlink(probe)
    }

    /// After a sign-out: removes the file store's folders that are left empty (each service's
    /// folder, the store's folder, and the `chappie` folder above it), never one that holds
    /// anything.
    static func removeEmptyFolders(_ store: any ChappieCredentialStore) {
        guard let store = store as? ChappieFileCredentialStore else { return }
        let folder = store.directory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            let service = folder.appending(path: name)
            // A refresh lock file left beside no credential is part of an empty slot.
            let contents = (try? FileManager.default.contentsOfDirectory(atPath: service.path)) ?? ["?"]
            if contents.allSatisfy({ $0.hasSuffix(".lock") }) {
                for lock in contents { unlink(service.appending(path: lock).path) }
                rmdir(service.path)
            }
        }
        if rmdir(folder.path) == 0 { rmdir(folder.deletingLastPathComponent().path) }
    }

    /// The system's words for a file-system error.
    private static func reason(of error: any Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let code = underlying?.code, underlying?.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(code))) }
        return error.localizedDescription
    }
}

/// `login` cannot save a sign-in: the credential folder cannot be created or written. Said before
/// the user approves anything; exit status 1.
struct CredentialFolderNotWritable: Error, LocalizedError {
    /// The folder that could not be created or written.
    var path: String
    /// The system's reason.
    var reason: String

    var errorDescription: String? {
        "cannot save the sign-in: the folder \(path) cannot be written (\(reason)); "
            + "make it writable, or set XDG_DATA_HOME to a folder you can write"
    }
}
