#if os(Linux)
import ChappieTransport
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The few libsecret and GLib functions ``ChappieSecretServiceCredentialStore`` calls, resolved at
/// run time with `dlopen`/`dlsym`, so the package builds and runs where libsecret is absent.
///
/// Only the non-variadic `…v_sync` entry points are used (Swift cannot call C variadic functions);
/// their attributes travel in a `GHashTable` of C strings built with `g_hash_table_new(g_str_hash,
/// g_str_equal)`. Signatures follow `libsecret/secret-password.h` (libsecret 0.20) and
/// `glib/ghash.h`, `glib/gerror.h` (GLib 2.74). The libraries are never closed: GLib registers
/// types that must outlive any unload. Every call runs on ``queue``.
struct LibSecret: Sendable {
    // C function pointer types are Sendable: they capture nothing.
    typealias HashFunction = @convention(c) (UnsafeRawPointer?) -> UInt32
    typealias EqualFunction = @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?) -> Int32
    typealias HashTableNew = @convention(c) (HashFunction?, EqualFunction?) -> UnsafeMutableRawPointer?
    typealias HashTableInsert = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32
    typealias HashTableUnref = @convention(c) (UnsafeMutableRawPointer?) -> Void
    typealias ErrorFree = @convention(c) (UnsafeMutableRawPointer?) -> Void
    /// `secret_password_storev_sync(schema, attributes, collection, label, password, cancellable, error)`.
    typealias StoreV = @convention(c) (
        UnsafeRawPointer?, UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
        UnsafePointer<CChar>?, UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) -> Int32
    /// `secret_password_lookupv_sync(schema, attributes, cancellable, error)`.
    typealias LookupV = @convention(c) (
        UnsafeRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) -> UnsafeMutablePointer<CChar>?
    /// `secret_password_clearv_sync(schema, attributes, cancellable, error)`.
    typealias ClearV = @convention(c) (
        UnsafeRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) -> Int32
    /// `secret_password_free(password)`: wipes, then frees.
    typealias PasswordFree = @convention(c) (UnsafeMutablePointer<CChar>?) -> Void

    let hashTableNew: HashTableNew
    let hashTableInsert: HashTableInsert
    let hashTableUnref: HashTableUnref
    let strHash: HashFunction
    let strEqual: EqualFunction
    let errorFree: ErrorFree
    let storeV: StoreV
    let lookupV: LookupV
    let clearV: ClearV
    let passwordFree: PasswordFree

    /// The libraries as found on Debian, Ubuntu and Fedora.
    static let defaultLibraryNames = (secret: "libsecret-1.so.0", glib: "libglib-2.0.so.0")

    /// The default libraries, loaded once per process.
    static let shared = load()

    /// Serializes every libsecret call and keeps the blocking D-Bus round trips off the
    /// cooperative thread pool.
    static let queue = DispatchQueue(label: "com.chappie.sdk.secret-service")

    /// Loads the libraries and resolves every symbol, or explains which one is missing.
    static func load(secret: String = defaultLibraryNames.secret, glib: String = defaultLibraryNames.glib)
        -> Result<LibSecret, ChappieCredentialStoreError>
    {
        guard let secretHandle = dlopen(secret, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(.unavailable("libsecret is not installed (\(secret) could not be loaded: \(lastLoaderError())); "
                + "install libsecret-1-0 or use the file store"))
        }
        guard let glibHandle = dlopen(glib, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(.unavailable("GLib is not installed (\(glib) could not be loaded: \(lastLoaderError()))"))
        }
        func symbol<Function>(_ handle: UnsafeMutableRawPointer, _ name: String, as type: Function.Type) throws(ChappieCredentialStoreError) -> Function {
            guard let address = dlsym(handle, name) else {
                throw .unavailable("the installed libsecret or GLib lacks \(name)")
            }
            return unsafeBitCast(address, to: type)
        }
        do throws(ChappieCredentialStoreError) {
            return .success(LibSecret(
                hashTableNew: try symbol(glibHandle, "g_hash_table_new", as: HashTableNew.self),
                hashTableInsert: try symbol(glibHandle, "g_hash_table_insert", as: HashTableInsert.self),
                hashTableUnref: try symbol(glibHandle, "g_hash_table_unref", as: HashTableUnref.self),
                strHash: try symbol(glibHandle, "g_str_hash", as: HashFunction.self),
                strEqual: try symbol(glibHandle, "g_str_equal", as: EqualFunction.self),
                errorFree: try symbol(glibHandle, "g_error_free", as: ErrorFree.self),
                storeV: try symbol(secretHandle, "secret_password_storev_sync", as: StoreV.self),
                lookupV: try symbol(secretHandle, "secret_password_lookupv_sync", as: LookupV.self),
                clearV: try symbol(secretHandle, "secret_password_clearv_sync", as: ClearV.self),
                passwordFree: try symbol(secretHandle, "secret_password_free", as: PasswordFree.self)
            ))
        } catch {
            return .failure(error)
        }
    }

    private static func lastLoaderError() -> String {
        guard let message = dlerror() else { return "unknown error" }
        return String(cString: message)
    }

    // MARK: Calls

    /// Stores `password` under `attributes`, replacing an item with the same attributes.
    /// Throws ``ChappieCredentialStoreError/unavailable(_:)`` with the Secret Service's message.
    func store(schema: SecretSchemaLayout, attributes: [(String, String)], label: String, password: String) throws(ChappieCredentialStoreError) {
        try schema.withSchema { schemaPointer throws(ChappieCredentialStoreError) in
            try withAttributes(attributes) { table throws(ChappieCredentialStoreError) in
                try withWipedCString(password) { passwordPointer throws(ChappieCredentialStoreError) in
                    _ = try checked { error in
                        label.withCString { labelPointer in
                            // A nil collection means the default collection (alias "default").
                            storeV(schemaPointer, table, nil, labelPointer, passwordPointer, nil, error)
                        }
                    }
                }
            }
        }
    }

    /// The password stored under `attributes`, or nil when there is none.
    /// Throws ``ChappieCredentialStoreError/unavailable(_:)`` with the Secret Service's message.
    func lookup(schema: SecretSchemaLayout, attributes: [(String, String)]) throws(ChappieCredentialStoreError) -> String? {
        try schema.withSchema { schemaPointer throws(ChappieCredentialStoreError) in
            try withAttributes(attributes) { table throws(ChappieCredentialStoreError) in
                let password = try checked { error in lookupV(schemaPointer, table, nil, error) }
                guard let password else { return nil }
                defer { passwordFree(password) }
                return String(cString: password)
            }
        }
    }

    /// Removes every item stored under `attributes`; none is not an error.
    /// Throws ``ChappieCredentialStoreError/unavailable(_:)`` with the Secret Service's message.
    func clear(schema: SecretSchemaLayout, attributes: [(String, String)]) throws(ChappieCredentialStoreError) {
        try schema.withSchema { schemaPointer throws(ChappieCredentialStoreError) in
            try withAttributes(attributes) { table throws(ChappieCredentialStoreError) in
                // FALSE with no error means nothing matched.
                _ = try checked { error in clearV(schemaPointer, table, nil, error) }
            }
        }
    }

    // MARK: Memory

    /// Runs `body` with a `GHashTable` mapping each attribute name to its value (C strings owned
    /// here, freed after the table).
    private func withAttributes<Result>(
        _ attributes: [(String, String)], _ body: (UnsafeMutableRawPointer) throws(ChappieCredentialStoreError) -> Result
    ) throws(ChappieCredentialStoreError) -> Result {
        guard let table = hashTableNew(strHash, strEqual) else { throw .unavailable("GLib could not allocate a hash table") }
        var strings: [UnsafeMutablePointer<CChar>] = []
        defer {
            hashTableUnref(table)
            strings.forEach { free($0) }
        }
        for (name, value) in attributes {
            guard let key = strdup(name), let copy = strdup(value) else { throw .unavailable("out of memory") }
            strings += [key, copy]
            _ = hashTableInsert(table, UnsafeMutableRawPointer(key), UnsafeMutableRawPointer(copy))
        }
        return try body(table)
    }

    /// Runs `body` with a C copy of `secret` that is zeroed before it is freed.
    private func withWipedCString<Result>(
        _ secret: String, _ body: (UnsafePointer<CChar>) throws(ChappieCredentialStoreError) -> Result
    ) throws(ChappieCredentialStoreError) -> Result {
        let bytes = Array(secret.utf8)
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        defer {
            memset(buffer, 0, bytes.count + 1)
            buffer.deallocate()
        }
        bytes.withUnsafeBufferPointer { source in
            source.withMemoryRebound(to: CChar.self) { buffer.update(from: $0.baseAddress!, count: bytes.count) }
        }
        buffer[bytes.count] = 0
        return try body(buffer)
    }

    /// Calls `body` with a `GError **`; when it sets one, frees it and throws its message
    /// (sanitized, bounded) as ``ChappieCredentialStoreError/unavailable(_:)``.
    private func checked<Result>(_ body: (UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> Result) throws(ChappieCredentialStoreError) -> Result {
        var error: UnsafeMutableRawPointer?
        let result = body(&error)
        if let error {
            // struct _GError { GQuark domain; gint code; gchar *message; }: message follows two 32-bit fields.
            let messageOffset = SecretSchemaLayout.align(2 * MemoryLayout<Int32>.size, to: MemoryLayout<UnsafeRawPointer>.alignment)
            let message = error.load(fromByteOffset: messageOffset, as: UnsafePointer<CChar>?.self).map { String(cString: $0) }
            errorFree(error)
            throw .unavailable("Secret Service: \(Redaction.clean(message ?? "unknown error", maximumBytes: 256))")
        }
        return result
    }
}
#endif
