import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieCore
#if canImport(Glibc)
import Glibc
#endif

private func temporaryDirectory() -> URL {
    FileManager.default.temporaryDirectory.appending(path: "chappie-store-\(UUID().uuidString)", directoryHint: .isDirectory)
}

private func mode(_ path: String) -> mode_t {
    var info = stat()
    lstat(path, &info)
    return info.st_mode & 0o777
}

@Suite("File credential store")
struct FileCredentialStoreTests {
    let key = ChappieCredentialKey(service: "com.chappie.sdk", account: "default")

    @Test("a credential round-trips with a 0700 folder and a 0600 file")
    func roundTrip() async throws {
        let root = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let store = ChappieFileCredentialStore(directory: root)
        let credential = ChappieAuthFixtures.credential()
        try await store.saveCredential(credential, for: key)
        #expect(try await store.loadCredential(for: key) == credential)
        let file = store.fileURL(for: key).path
        #expect(mode(file) == 0o600)
        #expect(mode(root.path) == 0o700)
        #expect(mode(store.fileURL(for: key).deletingLastPathComponent().path) == 0o700)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.fileURL(for: key).deletingLastPathComponent().path)
        #expect(leftovers == ["default.json"])
    }

    @Test("a refresh lock that cannot be opened says so in localizedDescription, with the reason")
    func unopenableLock() async throws {
        let root = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let store = ChappieFileCredentialStore(directory: root)
        try await store.saveCredential(ChappieAuthFixtures.credential(), for: key)
        // a folder where the lock file belongs: opening it for writing fails (EISDIR)
        let folder = store.fileURL(for: key).deletingLastPathComponent()
        try FileManager.default.createDirectory(atPath: store.lockPath(for: key, in: folder), withIntermediateDirectories: false)
        do {
            try await store.withRefreshLock(for: key) {}
            Issue.record("the lock was taken")
        } catch {
            #expect(error.localizedDescription.contains("refresh lock"))
            #expect(error.localizedDescription.contains(".lock"))
            #expect(!error.localizedDescription.contains("error 4"))
        }
    }

    @Test("a missing file is an empty slot and deleting twice is fine")
    func missingAndDelete() async throws {
        let root = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let store = ChappieFileCredentialStore(directory: root)
        #expect(try await store.loadCredential(for: key) == nil)
        try await store.saveCredential(ChappieAuthFixtures.credential(), for: key)
        try await store.deleteCredential(for: key)
        try await store.deleteCredential(for: key)
        #expect(try await store.loadCredential(for: key) == nil)
    }

    @Test("a file other users can read is refused")
    func insecurePermissions() async throws {
        let root = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let store = ChappieFileCredentialStore(directory: root)
        try await store.saveCredential(ChappieAuthFixtures.credential(), for: key)
        chmod(store.fileURL(for: key).path, 0o644)
        await #expect(throws: ChappieCredentialStoreError.insecurePermissions(store.fileURL(for: key).path)) {
            try await store.loadCredential(for: key)
        }
    }

    @Test("a symbolic link is never followed")
    func symbolicLink() async throws {
        let root = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let store = ChappieFileCredentialStore(directory: root)
        try await store.saveCredential(ChappieAuthFixtures.credential(), for: key)
        let real = store.fileURL(for: key).path
        let other = ChappieCredentialKey(service: key.service, account: "linked")
        symlink(real, store.fileURL(for: other).path)
        await #expect(throws: ChappieCredentialStoreError.symbolicLinkRefused(store.fileURL(for: other).path)) {
            try await store.loadCredential(for: other)
        }
    }

    @Test("a corrupt file is reported, and a new sign-in replaces it")
    func corrupt() async throws {
        let root = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let store = ChappieFileCredentialStore(directory: root)
        try await store.saveCredential(ChappieAuthFixtures.credential(), for: key)
        try Data("{ not json".utf8).write(to: store.fileURL(for: key))
        chmod(store.fileURL(for: key).path, 0o600)
        await #expect(throws: ChappieCredentialStoreError.self) { try await store.loadCredential(for: key) }
        let fresh = ChappieAuthFixtures.credential()
        try await store.saveCredential(fresh, for: key)
        #expect(try await store.loadCredential(for: key) == fresh)
    }

    @Test("service and account names cannot escape the folder", arguments: ["../../etc", "a/b", ".hidden", "", "ünï"])
    func safeNames(name: String) {
        let safe = ChappieFileCredentialStore.safeName(name)
        #expect(!safe.contains("/"))
        #expect(!safe.hasPrefix("."))
        #expect(!safe.isEmpty)
    }

    @Test("the file never contains anything but the JSON credential and is not world readable after a rewrite")
    func rewriteKeepsMode() async throws {
        let root = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let store = ChappieFileCredentialStore(directory: root)
        for _ in 0..<3 { try await store.saveCredential(ChappieAuthFixtures.credential(), for: key) }
        #expect(mode(store.fileURL(for: key).path) == 0o600)
    }
}

/// A folder tree `<root>/chappie/credentials` like the default layout, with `root` removed afterwards.
private func withDataHome(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (_ root: URL, _ store: ChappieFileCredentialStore) async throws -> Void
) async throws {
    let root = temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    try await body(root, ChappieFileCredentialStore(directory: root.appending(path: "chappie/credentials", directoryHint: .isDirectory)))
}

/// Runs `body` on a thread of its own, so a call that blocks (a FIFO opened for reading) fails
/// the test by its time limit instead of wedging the cooperative pool.
private func offThePool<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
    try await Task.detached { try await body() }.value
}

@Suite("File credential store: planted files and unsafe folders")
struct FileCredentialStoreHardeningTests {
    let key = ChappieCredentialKey(service: "com.chappie.sdk", account: "default")

    @Test("a FIFO planted at the credential path is refused at once instead of blocking for ever", .timeLimit(.minutes(1)))
    func fifoAtCredentialPath() async throws {
        try await withDataHome { _, store in
            try await store.saveCredential(ChappieAuthFixtures.credential(), for: key)
            let path = store.fileURL(for: key).path
            unlink(path)
            #expect(mkfifo(path, 0o600) == 0)
            let error = await #expect(throws: ChappieCredentialStoreError.self) {
                try await offThePool { try await store.loadCredential(for: key) }
            }
            #expect(error == .corrupt("\(path) is not a regular file"))
        }
    }

    @Test("the store's own folders, left open to everyone, are made private again")
    func ownFoldersTightened() async throws {
        try await withDataHome { _, store in
            let credential = ChappieAuthFixtures.credential()
            try await store.saveCredential(credential, for: key)
            let serviceFolder = store.fileURL(for: key).deletingLastPathComponent().path
            chmod(serviceFolder, 0o777)
            chmod(store.directory.path, 0o777)
            #expect(try await store.loadCredential(for: key) == credential)
            #expect(mode(serviceFolder) == 0o700)
            #expect(mode(store.directory.path) == 0o700)
        }
    }

    @Test("a folder above the store that others can write is refused, and the error says which and why")
    func writableParentRefused() async throws {
        try await withDataHome { root, store in
            try await store.saveCredential(ChappieAuthFixtures.credential(), for: key)
            let chappie = root.appending(path: "chappie").path
            chmod(chappie, 0o777)
            let expected = ChappieCredentialStoreError.insecureFolder(
                path: chappie, reason: "is writable by other users (mode 777); run `chmod go-w \(chappie)`")
            await #expect(throws: expected) { try await store.loadCredential(for: key) }
            await #expect(throws: expected) { try await store.saveCredential(ChappieAuthFixtures.credential(), for: key) }
            await #expect(throws: expected) { try await store.withRefreshLock(for: key) { 1 } }
            #expect(expected.description.contains("writable by other users"))
            // a sticky folder (like /tmp) is fine
            chmod(chappie, 0o1777)
            #expect(try await store.loadCredential(for: key) != nil)
        }
    }

    @Test("a folder writable by this user's private group is fine (umask 002); by another group it is refused")
    func groupWritableParent() async throws {
        try await withDataHome { root, store in
            try await store.saveCredential(ChappieAuthFixtures.credential(), for: key)
            let chappie = root.appending(path: "chappie").path
            chmod(chappie, 0o775)
            let privateGroup = ChappieFileCredentialStore.isPrivateGroup(getegid())
            if privateGroup {
                #expect(try await store.loadCredential(for: key) != nil)
            } else {
                await #expect(throws: ChappieCredentialStoreError.self) { try await store.loadCredential(for: key) }
            }
            guard geteuid() == 0 else { return }
            chown(chappie, 0, 65534)
            await #expect(throws: ChappieCredentialStoreError.insecureFolder(
                path: chappie, reason: "is writable by other users (mode 775); run `chmod go-w \(chappie)`")) {
                try await store.loadCredential(for: key)
            }
        }
    }

    @Test("the auth session says why a saved sign-in cannot be used, instead of only 'signed out'")
    @MainActor
    func sessionReportsTheReason() async throws {
        try await withDataHome { root, store in
            let configuration = ChappieConfiguration(credentialStore: store)
            try await store.saveCredential(ChappieAuthFixtures.credential(), for: configuration.credentialKey)
            chmod(root.appending(path: "chappie").path, 0o757)
            let session = ChappieAuthSession(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            await session.reload()
            #expect(session.state == .signedOut)
            let message = try #require(session.lastError?.errorDescription)
            #expect(message.contains("writable by other users") && message.contains("chmod go-w"))
            #expect(message.components(separatedBy: "could not be used").count == 2)
        }
    }

    @Test("folders and lock files of another user are refused", .enabled(if: geteuid() == 0, "needs root to chown"))
    func anotherUsersFiles() async throws {
        try await withDataHome { root, store in
            try await store.saveCredential(ChappieAuthFixtures.credential(), for: key)
            let serviceFolder = store.fileURL(for: key).deletingLastPathComponent().path
            // a lock file planted by another user
            let lock = serviceFolder + "/default.lock"
            #expect(FileManager.default.createFile(atPath: lock, contents: nil))
            chown(lock, 65534, 65534)
            let lockError = await #expect(throws: ChappieCredentialStoreError.self) { try await store.withRefreshLock(for: key) { 1 } }
            #expect(lockError?.description.contains("belongs to another user (uid 65534)") == true)
            unlink(lock)
            // the store's folder taken over by another user
            chown(serviceFolder, 65534, 65534)
            await #expect(throws: ChappieCredentialStoreError.insecureFolder(path: serviceFolder, reason: "belongs to another user (uid 65534)")) {
                try await store.loadCredential(for: key)
            }
            chown(serviceFolder, 0, 0)
            // a folder above it owned by another user
            let chappie = root.appending(path: "chappie").path
            chown(chappie, 65534, 65534)
            await #expect(throws: ChappieCredentialStoreError.insecureFolder(path: chappie, reason: "belongs to another user (uid 65534)")) {
                try await store.loadCredential(for: key)
            }
        }
    }

    @Test("a FIFO in place of the lock file is refused, not waited on", .timeLimit(.minutes(1)))
    func fifoLock() async throws {
        try await withDataHome { _, store in
            try await store.saveCredential(ChappieAuthFixtures.credential(), for: key)
            let lock = store.fileURL(for: key).deletingLastPathComponent().path + "/default.lock"
            #expect(mkfifo(lock, 0o600) == 0)
            let error = await #expect(throws: ChappieCredentialStoreError.self) {
                try await offThePool { try await store.withRefreshLock(for: key) { 1 } }
            }
            #expect(error?.description.contains("not a regular file") == true)
        }
    }
}
