#if os(Linux)
import Dispatch
import Foundation

/// Stores each credential in the desktop's Secret Service (GNOME Keyring, KWallet, KeePassXC)
/// through libsecret, loaded at run time: the Linux desktop alternative to the file store.
///
/// Choose it with `ChappieConfiguration(credentialStore: ChappieSecretServiceCredentialStore())`;
/// the file store stays the default. Each credential is one item in the default collection
/// (usually the "login" keyring), labelled `Chappie sign-in (<service>/<account>)`, with the
/// attributes `service` and `account` from the ``ChappieCredentialKey`` under the schema
/// ``schemaName`` (stored by libsecret as `xdg:schema`). The secret is the credential's JSON.
///
/// Every call throws ``ChappieCredentialStoreError/unavailable(_:)`` when `libsecret-1.so.0` is not
/// installed, when there is no D-Bus session bus or no Secret Service on it, or when the service
/// refuses (e.g. a locked keyring whose unlock prompt was dismissed); the message is the
/// service's, sanitized, and never contains a token. Calls block on D-Bus round trips, so they run
/// one at a time on a private dispatch queue, never on Swift's cooperative thread pool.
/// Linux only.
public struct ChappieSecretServiceCredentialStore: ChappieCredentialStore {
    /// The schema name used unless another is given: `com.chappie.sdk.Credential`.
    public static let defaultSchemaName = "com.chappie.sdk.Credential"

    /// The libsecret schema name; items of other schemas are never read or changed.
    public let schemaName: String
    /// `secret-service:<schemaName>`.
    public var identity: String { "secret-service:\(schemaName)" }

    private let library: Result<LibSecret, ChappieCredentialStoreError>

    /// Creates a store. The first store created loads libsecret (once per process); the Secret
    /// Service is contacted only by the first load, save or delete.
    /// - Parameter schemaName: the libsecret schema name; keep the default unless two apps of
    ///   yours must not see each other's items.
    public init(schemaName: String = defaultSchemaName) {
        self.init(schemaName: schemaName, library: LibSecret.shared)
    }

    /// Creates a store with the libraries of another name (tests use a missing one).
    init(schemaName: String = defaultSchemaName, libraryNames: (secret: String, glib: String)) {
        self.init(schemaName: schemaName, library: LibSecret.load(secret: libraryNames.secret, glib: libraryNames.glib))
    }

    private init(schemaName: String, library: Result<LibSecret, ChappieCredentialStoreError>) {
        self.schemaName = schemaName
        self.library = library
    }

    /// Whether libsecret and GLib could be loaded. True does not mean a Secret Service is
    /// running: only a call can tell.
    public var isLibraryAvailable: Bool {
        if case .success = library { return true }
        return false
    }

    /// Reads the credential, or nil when the keyring has none for `key`. Throws
    /// ``ChappieCredentialStoreError/unavailable(_:)`` (no libsecret, no Secret Service) or
    /// ``ChappieCredentialStoreError/corrupt(_:)`` (the item is not a Chappie credential).
    public func loadCredential(for key: ChappieCredentialKey) async throws -> ChappieCredential? {
        let schema = self.schema
        let attributes = Self.attributes(for: key)
        let secret = try await perform { library throws(ChappieCredentialStoreError) in try library.lookup(schema: schema, attributes: attributes) }
        guard let secret else { return nil }
        do {
            return try ChappieCredential(storageData: Data(secret.utf8))
        } catch {
            throw ChappieCredentialStoreError.corrupt("the Secret Service item for \(key) is not a Chappie credential")
        }
    }

    /// Stores the credential, replacing the item for `key` if there is one. Throws
    /// ``ChappieCredentialStoreError/unavailable(_:)`` when the Secret Service cannot be used.
    public func saveCredential(_ credential: ChappieCredential, for key: ChappieCredentialKey) async throws {
        let data: Data
        do {
            data = try credential.encodedForStorage()
        } catch {
            throw ChappieCredentialStoreError.io("the credential could not be encoded")
        }
        let secret = String(decoding: data, as: UTF8.self)
        let schema = self.schema
        let attributes = Self.attributes(for: key)
        let label = "Chappie sign-in (\(key))"
        try await perform { library throws(ChappieCredentialStoreError) in
            try library.store(schema: schema, attributes: attributes, label: label, password: secret)
        }
    }

    /// Deletes the item for `key`; an empty slot is not an error. Throws
    /// ``ChappieCredentialStoreError/unavailable(_:)`` when the Secret Service cannot be used.
    public func deleteCredential(for key: ChappieCredentialKey) async throws {
        let schema = self.schema
        let attributes = Self.attributes(for: key)
        try await perform { library throws(ChappieCredentialStoreError) in try library.clear(schema: schema, attributes: attributes) }
    }

    private var schema: SecretSchemaLayout {
        SecretSchemaLayout(name: schemaName, attributeNames: [Wire.service, Wire.account])
    }

    private static func attributes(for key: ChappieCredentialKey) -> [(String, String)] {
        [(Wire.service, key.service), (Wire.account, key.account)]
    }

    /// Runs `operation` on the libsecret queue and resumes with its result.
    private func perform<Result: Sendable>(
        _ operation: @escaping @Sendable (LibSecret) throws(ChappieCredentialStoreError) -> Result
    ) async throws(ChappieCredentialStoreError) -> Result {
        let library = try library.get()
        let outcome: Swift.Result<Result, ChappieCredentialStoreError> = await withCheckedContinuation { continuation in
            LibSecret.queue.async {
                do throws(ChappieCredentialStoreError) {
                    continuation.resume(returning: .success(try operation(library)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try outcome.get()
    }

    /// The item attributes, as other Secret Service clients (`secret-tool`, Seahorse) see them.
    private enum Wire {
        static let service = "service"
        static let account = "account"
    }
}
#endif
