import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieSDK
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
