import ChappieTransport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What one installation keeps for Sign in with ChatGPT beside the tokens (SIWC.md §2.2, §2.10):
/// its `ext_agent_host_id`, created once before the first sign-in, and the app's registrations
/// (issued client id, issuer, account, label), which sign-out keeps. No token is in it.
struct SIWCInstallation: Sendable, Codable, Equatable {
    /// `urn:uuid:<UUIDv4>`: the same for every sign-in from this installation.
    var hostID: String
    /// Every registration made from this installation, in the order they were made.
    var registrations: [SIWCRegistration] = []
    /// The credential slot signed in last.
    var activeSlot: String?

    /// A new installation with a fresh host id.
    static func fresh() -> SIWCInstallation {
        SIWCInstallation(hostID: "urn:uuid:" + UUID().uuidString.lowercased())
    }

    /// The registration of credential slot `slot`, if one was made.
    func registration(forSlot slot: String) -> SIWCRegistration? {
        registrations.last { $0.slot == slot }
    }

    /// A label no other registration has: the email (or "ChatGPT account"), then " (2)", " (3)", ….
    func distinctLabel(for email: String?, excluding clientID: String) -> String {
        let base = email ?? "ChatGPT account"
        let taken = Set(registrations.filter { $0.clientID != clientID }.map(\.label))
        var label = base
        var number = 2
        while taken.contains(label) { label = "\(base) (\(number))"; number += 1 }
        return label
    }
}

/// One issued client (`oaiapp_…`): bound to the account and workspace chosen when it was made.
struct SIWCRegistration: Sendable, Codable, Equatable {
    /// The issued client id. Not a secret.
    var clientID: String
    /// The issuer that issued it.
    var issuer: String
    /// The credential slot (``ChappieConfiguration/keychainAccount``) whose tokens belong to it.
    var slot: String
    /// The validated `sub`; nil until the first ID token of this registration was verified.
    var subject: String?
    /// The email of the validated ID token: a label and the `login_hint`, never an identity.
    var email: String?
    /// A stable label, distinct among this installation's registrations.
    var label: String
    /// Whether the one-time "You're using your ChatGPT plan" notice was acknowledged.
    var planUsageNoticeShown: Bool = false
}

/// Where an installation record is kept: never synchronized or backed up to another device.
protocol SIWCInstallationStore: Sendable {
    /// The record, or nil before the first sign-in. Throws ``ChappieCredentialStoreError``.
    func load() throws -> SIWCInstallation?
    /// Replaces the record. Throws ``ChappieCredentialStoreError``.
    func save(_ installation: SIWCInstallation) throws
}

extension SIWCInstallationStore {
    /// The record, created and saved (with a new host id) when there is none yet.
    func loadOrCreate() throws -> SIWCInstallation {
        if let existing = try load() { return existing }
        let fresh = SIWCInstallation.fresh()
        try save(fresh)
        return fresh
    }

    /// Reads, changes and saves the record. Throws ``ChappieCredentialStoreError``.
    @discardableResult
    func update(_ change: (inout SIWCInstallation) throws -> Void) throws -> SIWCInstallation {
        var installation = try loadOrCreate()
        try change(&installation)
        try save(installation)
        return installation
    }
}

enum SIWCInstallationStores {
    /// The store that goes with `configuration`'s credential store: a Keychain item that never
    /// syncs (Apple), a `0600` file beside the credentials (Linux), process memory for
    /// ``ChappieInMemoryCredentialStore``.
    static func store(for configuration: ChappieConfiguration) -> any SIWCInstallationStore {
        let service = configuration.credentialKey.service
        if configuration.credentialStore is ChappieInMemoryCredentialStore {
            return MemoryInstallationStore(name: configuration.credentialStore.identity + "\u{0}" + service)
        }
        #if canImport(Security)
        return KeychainInstallationStore(service: service, accessGroup: configuration.keychainAccessGroup, calls: SecurityFrameworkKeychain())
        #else
        let directory = (configuration.credentialStore as? ChappieFileCredentialStore)?.directory
            ?? ChappieFileCredentialStore.defaultDirectory()
        return FileInstallationStore(directory: directory, service: service)
        #endif
    }
}

/// A record in process memory (tests, ``ChappieInMemoryCredentialStore``).
struct MemoryInstallationStore: SIWCInstallationStore {
    let name: String
    private static let records = LockedBox<[String: SIWCInstallation]>([:])

    func load() throws -> SIWCInstallation? { Self.records.withLock { $0[name] } }
    func save(_ installation: SIWCInstallation) throws { Self.records.withLock { $0[name] = installation } }
}

/// The record as `<directory>/<service>.siwc-installation.json`, beside the credential folders:
/// folder `0700`, file `0600`, replaced atomically, never through a symbolic link.
struct FileInstallationStore: SIWCInstallationStore {
    let directory: URL
    let service: String

    var fileURL: URL { directory.appending(path: ChappieFileCredentialStore.safeName(service) + Wire.suffix) }

    func load() throws -> SIWCInstallation? {
        let path = fileURL.path
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw ChappieCredentialStoreError.symbolicLinkRefused(path) }
            throw ChappieCredentialStoreError.io("open failed: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw ChappieCredentialStoreError.corrupt("the installation record is not a regular file")
        }
        guard info.st_uid == geteuid(), info.st_mode & 0o077 == 0 else { throw ChappieCredentialStoreError.insecurePermissions(path) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 { if errno == EINTR { continue }; throw ChappieCredentialStoreError.io("read failed") }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
            if data.count > 1 << 20 { throw ChappieCredentialStoreError.corrupt("the installation record is too large") }
        }
        do { return try JSONDecoder().decode(SIWCInstallation.self, from: data) }
        catch { throw ChappieCredentialStoreError.corrupt("the installation record is not readable") }
    }

    func save(_ installation: SIWCInstallation) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch { throw ChappieCredentialStoreError.io("cannot create \(directory.path)") }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data = try encoder.encode(installation)
        let temporary = directory.appending(path: ".\(UUID().uuidString).tmp").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ChappieCredentialStoreError.io("create failed: \(String(cString: strerror(errno)))") }
        let written = data.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 { if errno == EINTR { continue }; return false }
                offset += count
            }
            return fsync(descriptor) == 0
        }
        close(descriptor)
        guard written, rename(temporary, fileURL.path) == 0 else {
            unlink(temporary)
            throw ChappieCredentialStoreError.io("write failed: \(String(cString: strerror(errno)))")
        }
    }

    private enum Wire {
        static let suffix = ".siwc-installation.json"
    }
}

/// The record as a generic-password Keychain item that never leaves the device: not
/// synchronizable (no iCloud Keychain) and `…ThisDeviceOnly` (not restored from a backup onto
/// another device), so a restored or migrated device gets a host id of its own.
struct KeychainInstallationStore: SIWCInstallationStore {
    let service: String
    let accessGroup: String?
    let calls: any KeychainItemCalls

    private var itemQuery: KeychainQuery {
        var query = KeychainQuery([
            .itemClass: .constant(.genericPassword), .service: .string(service + Wire.serviceSuffix),
            .account: .string(Wire.account), .synchronizable: .bool(false),
        ])
        if let accessGroup { query[.accessGroup] = .string(accessGroup) }
        #if os(macOS)
        query[.useDataProtectionKeychain] = .bool(true)
        #endif
        return query
    }

    func load() throws -> SIWCInstallation? {
        var query = itemQuery
        query[.returnData] = .bool(true)
        query[.matchLimit] = .constant(.matchLimitOne)
        let (status, data) = calls.copyMatching(query)
        if status == .itemNotFound { return nil }
        guard status == .success, let data else {
            throw ChappieCredentialStoreError.unavailable(calls.message(for: status) ?? "keychain status \(status.rawValue)")
        }
        do { return try JSONDecoder().decode(SIWCInstallation.self, from: data) }
        catch { throw ChappieCredentialStoreError.corrupt("the installation record is not readable") }
    }

    func save(_ installation: SIWCInstallation) throws {
        let data = try JSONEncoder().encode(installation)
        let changes = KeychainQuery([.valueData: .data(data), .accessible: .constant(.accessibleAfterFirstUnlockThisDeviceOnly)])
        var status = calls.update(itemQuery, changes: changes)
        if status == .itemNotFound { status = calls.add(itemQuery.merging(changes)) }
        guard status == .success else {
            throw ChappieCredentialStoreError.unavailable(calls.message(for: status) ?? "keychain status \(status.rawValue)")
        }
    }

    private enum Wire {
        static let serviceSuffix = ".siwc-installation"
        static let account = "installation"
    }
}
