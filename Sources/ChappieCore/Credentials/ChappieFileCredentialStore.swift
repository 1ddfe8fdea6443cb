import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Stores each credential as a JSON file: the Linux default.
///
/// Layout: `<directory>/<service>/<account>.json`, where `<directory>` defaults to
/// `$XDG_DATA_HOME/chappie/credentials` (else `~/.local/share/chappie/credentials`). Folders are
/// created `0700` and files `0600`; a save writes a temporary file, `fsync`s it and renames it over
/// the old one, so a crash leaves either the old or the new credential. A file that other users can
/// read or that is not owned by this user is refused, and symbolic links are never followed.
/// Service and account names are percent-encoded into safe file names.
///
/// Files are opened without blocking and must be regular files: a FIFO, socket or device planted
/// at a credential path is refused at once instead of hanging the process. Every folder above a
/// credential must be owned by this user or by root and must not be writable by other users
/// (unless sticky, like `/tmp`), or another user could swap it or plant files in it: the store's
/// own folders (`<directory>` and `<directory>/<service>`) are tightened to `0700` when they are
/// this user's, and anything else is refused with
/// ``ChappieCredentialStoreError/insecureFolder(path:reason:)``, which says why. The refresh lock
/// file must be a regular file owned by this user, and waiting for it ends on cancellation or
/// after ``lockTimeout``.
public final class ChappieFileCredentialStore: ChappieCredentialStore {
    /// The root folder.
    public let directory: URL
    /// `file:<directory>`.
    public var identity: String { "file:\(directory.path)" }

    /// The default store at the default location.
    public static let shared = ChappieFileCredentialStore()

    /// Creates a store rooted at `directory` (default location when nil).
    public init(directory: URL? = nil) {
        self.directory = directory ?? Self.defaultDirectory()
    }

    /// `$XDG_DATA_HOME/chappie/credentials`, or `$HOME/.local/share/chappie/credentials`.
    public static func defaultDirectory() -> URL {
        UserHomeDirectory.dataHome().appending(path: "chappie/credentials", directoryHint: .isDirectory)
    }

    /// Reads the credential. Throws ``ChappieCredentialStoreError`` for an unsafe or damaged file, or
    /// an unsafe folder above it.
    public func loadCredential(for key: ChappieCredentialKey) async throws -> ChappieCredential? {
        try readCredential(for: key)
    }

    /// Reads the slot at once (a small local file, opened without blocking), so a session starts
    /// signed in from its first frame. Throws ``ChappieCredentialStoreError`` like
    /// ``loadCredential(for:)``.
    public func loadCredentialSynchronously(for key: ChappieCredentialKey) throws -> ChappieSynchronousCredentialLoad {
        .loaded(try readCredential(for: key))
    }

    private func readCredential(for key: ChappieCredentialKey) throws -> ChappieCredential? {
        guard let folder = try secureFolder(for: key, creating: false) else { return nil }
        recoverLeftoverSave(for: key, in: folder)
        return try readFile(fileURL(for: key).path)
    }

    /// The credential in the file at `path`, or nil when there is none. Throws
    /// ``ChappieCredentialStoreError`` for an unsafe or damaged file.
    func readFile(_ path: String) throws -> ChappieCredential? {
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw ChappieCredentialStoreError.symbolicLinkRefused(path) }
            throw ChappieCredentialStoreError.io("open failed: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw ChappieCredentialStoreError.io("stat failed: \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw ChappieCredentialStoreError.corrupt("\(path) is not a regular file")
        }
        guard info.st_uid == geteuid(), info.st_mode & 0o077 == 0 else {
            throw ChappieCredentialStoreError.insecurePermissions(path)
        }
        let data = try readAll(descriptor)
        do {
            return try ChappieCredential(storageData: data)
        } catch {
            throw ChappieCredentialStoreError.corrupt("not a Chappie credential (\(data.count) bytes)")
        }
    }

    /// Writes the credential atomically with mode 0600. Throws ``ChappieCredentialStoreError``.
    public func saveCredential(_ credential: ChappieCredential, for key: ChappieCredentialKey) async throws {
        let folder = try ensureFolder(for: key)
        let target = fileURL(for: key).path
        let temporary = folder.appending(path: Self.temporaryName(for: fileURL(for: key))).path
        let data = try credential.encodedForStorage()
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ChappieCredentialStoreError.io("create failed: \(String(cString: strerror(errno)))")
        }
        var failure: ChappieCredentialStoreError?
        let written = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0 { if errno == EINTR { continue }; return false }
                offset += count
            }
            return true
        }
        if !written || fsync(descriptor) != 0 {
            failure = .io("write failed: \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        if failure == nil, rename(temporary, target) != 0 {
            failure = .io("rename failed: \(String(cString: strerror(errno)))")
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
        syncFolder(folder.path)
    }

    /// Deletes the credential file, if any. Throws ``ChappieCredentialStoreError`` on I/O failure.
    public func deleteCredential(for key: ChappieCredentialKey) async throws {
        let path = fileURL(for: key).path
        if unlink(path) != 0 && errno != ENOENT {
            throw ChappieCredentialStoreError.io("delete failed: \(String(cString: strerror(errno)))")
        }
        // A save a killed process left behind must not bring the credential back.
        for leftover in leftoverSaves(for: key) { unlink(leftover) }
    }

    /// Holds an exclusive `flock` on `<account>.lock` beside the credential while `body` runs, so
    /// processes sharing the folder refresh one at a time. The lock is released when `body`
    /// returns or throws (and by the kernel if the process dies). Waiting for another process
    /// ends with `CancellationError` when the task is cancelled, and with an error after
    /// ``lockTimeout``.
    /// Throws ``ChappieCredentialStoreError`` when the lock file cannot be opened, is not a regular
    /// file of this user's, or stays locked too long.
    public func withRefreshLock<Result: Sendable>(for key: ChappieCredentialKey, _ body: @Sendable () async throws -> Result) async throws -> Result {
        let path = lockPath(for: key, in: try ensureFolder(for: key))
        do {
            return try await AdvisoryFileLock.withLock(path: path, timeout: Self.lockTimeout) { try await body() }
        } catch let failure as AdvisoryFileLock.Failure {
            switch failure {
            case .open(_, symbolicLink: true): throw ChappieCredentialStoreError.symbolicLinkRefused(path)
            case .open(let reason, _): throw ChappieCredentialStoreError.io("cannot open the refresh lock \(path): \(reason)")
            case .lock(let reason): throw ChappieCredentialStoreError.io("cannot take the refresh lock \(path): \(reason)")
            }
        }
    }

    /// Longest wait for another process's refresh lock (a refresh takes one token request, whose
    /// idle timeout is 30 s).
    public static let lockTimeout: Duration = .seconds(60)

    /// The file that holds `key`.
    func fileURL(for key: ChappieCredentialKey) -> URL {
        directory
            .appending(path: Self.safeName(key.service), directoryHint: .isDirectory)
            .appending(path: Self.safeName(key.account) + ".json")
    }

    /// Percent-encodes everything but `[A-Za-z0-9_-]` (and a leading dot) so names cannot escape.
    static func safeName(_ text: String) -> String {
        guard !text.isEmpty else { return "%00" }
        var name = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            let safe = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || scalar == "_" || scalar == "-" || (scalar == "." && !name.isEmpty)
            name += safe ? String(scalar) : String(format: "%%%02X", byte)
        }
        return name
    }

    /// The folder of `key`, created `0700` (with the folders above it) when missing. Throws
    /// ``ChappieCredentialStoreError`` for an unsafe folder on the way.
    private func ensureFolder(for key: ChappieCredentialKey) throws -> URL {
        guard let folder = try secureFolder(for: key, creating: true) else {
            throw ChappieCredentialStoreError.io("cannot create the folder of \(key)")
        }
        return folder
    }

    /// Checks every folder from `/` down to the folder of `key` (see the type's documentation) and
    /// returns that folder, or nil when it does not exist and `creating` is false.
    private func secureFolder(for key: ChappieCredentialKey, creating: Bool) throws -> URL? {
        let folder = fileURL(for: key).deletingLastPathComponent()
        let parent = directory.deletingLastPathComponent().path
        if creating {
            do {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw ChappieCredentialStoreError.io("cannot create folder \(parent): \(error.localizedDescription)")
            }
        }
        guard try Self.checkAncestors(of: parent) else { return nil }
        for path in [directory.path, folder.path] {
            var info = stat()
            if lstat(path, &info) != 0 {
                guard errno == ENOENT else { throw ChappieCredentialStoreError.io("cannot inspect folder \(path)") }
                guard creating else { return nil }
                if mkdir(path, 0o700) != 0, errno != EEXIST {
                    throw ChappieCredentialStoreError.io("cannot create folder \(path): \(String(cString: strerror(errno)))")
                }
                guard lstat(path, &info) == 0 else { throw ChappieCredentialStoreError.io("cannot inspect folder \(path)") }
            }
            if info.st_mode & S_IFMT == S_IFLNK { throw ChappieCredentialStoreError.symbolicLinkRefused(path) }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw ChappieCredentialStoreError.insecureFolder(path: path, reason: "is not a folder")
            }
            guard info.st_uid == geteuid() else {
                throw ChappieCredentialStoreError.insecureFolder(path: path, reason: "belongs to another user (uid \(info.st_uid))")
            }
            // The store's own folders: tighten rather than refuse.
            if info.st_mode & 0o077 != 0, chmod(path, 0o700) != 0 {
                throw ChappieCredentialStoreError.insecureFolder(
                    path: path, reason: "is open to other users (mode \(String(info.st_mode & 0o7777, radix: 8))) and cannot be made private")
            }
        }
        return folder
    }

    /// Checks `path` and every folder above it, links resolved: each must be a folder owned by
    /// this user or root, not writable by group or others unless sticky. Returns false when
    /// `path` does not exist. Throws ``ChappieCredentialStoreError/insecureFolder(path:reason:)``.
    static func checkAncestors(of path: String) throws -> Bool {
        guard let resolved = realpath(path, nil) else {
            if errno == ENOENT || errno == ENOTDIR { return false }
            throw ChappieCredentialStoreError.io("cannot resolve folder \(path): \(String(cString: strerror(errno)))")
        }
        let real = String(cString: resolved)
        free(resolved)
        var prefix = ""
        for component in [""] + real.split(separator: "/").map(String.init) {
            prefix += component.isEmpty ? "/" : (prefix.hasSuffix("/") ? component : "/" + component)
            var info = stat()
            guard lstat(prefix, &info) == 0 else {
                throw ChappieCredentialStoreError.io("cannot inspect folder \(prefix): \(String(cString: strerror(errno)))")
            }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw ChappieCredentialStoreError.insecureFolder(path: prefix, reason: "is not a folder")
            }
            guard info.st_uid == geteuid() || info.st_uid == 0 else {
                throw ChappieCredentialStoreError.insecureFolder(path: prefix, reason: "belongs to another user (uid \(info.st_uid))")
            }
            // Writable by others is fine with the sticky bit (/tmp); writable by the group is fine
            // when the group is this user's private group (Debian's umask 002 makes ~/.local so).
            let writableByOthers = info.st_mode & 0o002 != 0
                || (info.st_mode & 0o020 != 0 && !(info.st_uid == geteuid() && isPrivateGroup(info.st_gid)))
            if writableByOthers, info.st_mode & S_ISVTX == 0 {
                throw ChappieCredentialStoreError.insecureFolder(
                    path: prefix,
                    reason: "is writable by other users (mode \(String(info.st_mode & 0o7777, radix: 8))); run `chmod go-w \(prefix)`")
            }
        }
        return true
    }

    /// Whether `gid` is this user's private group (the user-private-group scheme of Debian and
    /// Fedora): this user's primary group, named after the user, with no other member listed.
    static func isPrivateGroup(_ gid: gid_t) -> Bool {
        guard gid == getegid() else { return false }
        var storage = [CChar](repeating: 0, count: 32 << 10)
        return storage.withUnsafeMutableBufferPointer { buffer -> Bool in
            let half = buffer.count / 2
            var user = passwd()
            var userResult: UnsafeMutablePointer<passwd>?
            guard getpwuid_r(geteuid(), &user, buffer.baseAddress!, half, &userResult) == 0, userResult != nil,
                  let userNamePointer = user.pw_name else { return false }
            let userName = String(cString: userNamePointer)
            var entry = group()
            var groupResult: UnsafeMutablePointer<group>?
            guard getgrgid_r(gid, &entry, buffer.baseAddress! + half, half, &groupResult) == 0, groupResult != nil,
                  let groupName = entry.gr_name, String(cString: groupName) == userName else { return false }
            var member = entry.gr_mem
            while let name = member?.pointee {
                if String(cString: name) != userName { return false }
                member = member?.advanced(by: 1)
            }
            return true
        }
    }

    func readAll(_ descriptor: Int32) throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw ChappieCredentialStoreError.io("read failed: \(String(cString: strerror(errno)))")
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
            if data.count > Self.maximumFileBytes { throw ChappieCredentialStoreError.corrupt("file larger than \(Self.maximumFileBytes) bytes") }
        }
    }

    func syncFolder(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// Largest credential file read, in bytes.
    static let maximumFileBytes = 1 << 20
}
