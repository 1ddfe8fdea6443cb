import Foundation

/// Why a thread store call failed. Messages name files by their store-generated names only and
/// never contain thread content.
public enum ChappieThreadStoreError: Error, Sendable, Equatable, LocalizedError {
    /// There is no thread with this id.
    case threadNotFound(UUID)
    /// The thread's stored data cannot be read as a thread (damaged, or not a Chappie thread).
    /// The file store moves it aside unchanged and reports it in ``ChappieThreadStore/issues()``.
    case corruptThread(UUID, reason: String)
    /// The thread was written by a newer version of the SDK (its format version); left as it is.
    case unsupportedFormatVersion(UUID, version: Int)
    /// Storing would use more than the byte cap. Nothing was written and nothing stored was lost.
    /// All values in bytes: the size the stored threads would have, what they use now, the cap.
    case byteCapExceeded(bytesNeeded: Int, bytesUsed: Int, byteCap: Int)
    /// A file or folder is readable by others or not owned by this user (path).
    case insecurePermissions(String)
    /// A path that must be a plain file or folder is a symbolic link (path).
    case symbolicLinkRefused(String)
    /// The thread changed in the store since it was read (another runtime or process wrote it);
    /// the write was not made, so that write is not lost.
    case threadChangedElsewhere(UUID)
    /// The file system failed (what failed and the system's reason).
    case io(String)

    /// A one-line description for people.
    public var errorDescription: String? {
        switch self {
        case .threadNotFound(let id): "No thread with id \(id.uuidString.lowercased())."
        case .corruptThread(let id, let reason): "Thread \(id.uuidString.lowercased()) is damaged and was set aside: \(reason)"
        case .unsupportedFormatVersion(let id, let version):
            "Thread \(id.uuidString.lowercased()) was written by a newer version (format \(version))."
        case .byteCapExceeded(let needed, let used, let cap):
            "Saving would use \(needed) bytes, over the \(cap)-byte cap for threads (\(used) bytes used). Nothing was changed."
        case .insecurePermissions(let path): "\(path) is accessible by other users or not owned by you; refusing to use it."
        case .symbolicLinkRefused(let path): "\(path) is a symbolic link; refusing to follow it."
        case .threadChangedElsewhere(let id): "Thread \(id.uuidString.lowercased()) was changed elsewhere; reload it and try again."
        case .io(let message): "Thread storage failed: \(message)"
        }
    }

    /// What the app or its user can do about it, one sentence.
    public var recoverySuggestion: String? {
        switch self {
        case .threadNotFound: "List the stored threads and pick one of them."
        case .corruptThread: "The thread can't be recovered here; start a new one."
        case .unsupportedFormatVersion: "Update the app to open this thread."
        case .byteCapExceeded: "Delete or archive older threads, or raise the store's byte cap."
        case .insecurePermissions: "Make the store's files and folders accessible to you alone (mode 700 for folders, 600 for files)."
        case .symbolicLinkRefused: "Replace the symbolic link with a plain file or folder."
        case .threadChangedElsewhere: "Reload the thread, then make the change again."
        case .io: "Check that the disk is writable and has free space, then try again."
        }
    }
}
