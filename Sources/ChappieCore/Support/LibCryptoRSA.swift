#if os(Linux)
import Foundation

/// The OpenSSL 3 `libcrypto.so.3` functions that verify an RS256 signature (RSASSA-PKCS1-v1_5
/// with SHA-256, RFC 7518 §3.3), loaded at run time (``SystemLibrary``): `d2i_PUBKEY` reads a DER
/// SubjectPublicKeyInfo, and `EVP_DigestVerify*` checks the signature. Signatures follow
/// OpenSSL 3.0's `x509.h` and `evp.h`.
struct LibCryptoRSA: Sendable {
    typealias ReadPublicKey = @convention(c) (
        UnsafeMutablePointer<OpaquePointer?>?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, Int
    ) -> OpaquePointer?
    typealias KeyFree = @convention(c) (OpaquePointer?) -> Void
    typealias ContextNew = @convention(c) () -> OpaquePointer?
    typealias ContextFree = @convention(c) (OpaquePointer?) -> Void
    typealias Method = @convention(c) () -> OpaquePointer?
    typealias VerifyInit = @convention(c) (
        OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?, OpaquePointer?, OpaquePointer?, OpaquePointer?
    ) -> Int32
    typealias Verify = @convention(c) (OpaquePointer?, UnsafePointer<UInt8>?, Int, UnsafePointer<UInt8>?, Int) -> Int32
    typealias ErrorClear = @convention(c) () -> Void

    let readPublicKey: ReadPublicKey
    let keyFree: KeyFree
    let contextNew: ContextNew
    let contextFree: ContextFree
    let sha256: Method
    let verifyInit: VerifyInit
    let verify: Verify
    let errorClear: ErrorClear

    /// The default library, loaded once per process.
    static let shared = Result { () throws(SystemLibrary.LoadError) in try load() }

    /// Loads `libcrypto.so.3` and resolves every function.
    ///
    /// - Throws: ``SystemLibrary/LoadError`` naming the missing library or function.
    static func load(crypto: String = OpenSSLLibrary.defaultLibraryNames.crypto) throws(SystemLibrary.LoadError) -> LibCryptoRSA {
        let handle = try SystemLibrary.open(crypto)
        func c<Function>(_ name: String, _ type: Function.Type) throws(SystemLibrary.LoadError) -> Function {
            try SystemLibrary.function(handle, name, library: crypto, as: type)
        }
        return LibCryptoRSA(
            readPublicKey: try c("d2i_PUBKEY", ReadPublicKey.self),
            keyFree: try c("EVP_PKEY_free", KeyFree.self),
            contextNew: try c("EVP_MD_CTX_new", ContextNew.self),
            contextFree: try c("EVP_MD_CTX_free", ContextFree.self),
            sha256: try c("EVP_sha256", Method.self),
            verifyInit: try c("EVP_DigestVerifyInit", VerifyInit.self),
            verify: try c("EVP_DigestVerify", Verify.self),
            errorClear: try c("ERR_clear_error", ErrorClear.self)
        )
    }

    /// Whether `signature` is a valid RS256 signature of `message` under the public key
    /// `subjectPublicKeyInfo` (DER). A key OpenSSL cannot read is a failed check.
    func verifyRS256(subjectPublicKeyInfo: [UInt8], message: [UInt8], signature: [UInt8]) -> Bool {
        defer { errorClear() }
        let key: OpaquePointer? = subjectPublicKeyInfo.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return readPublicKey(nil, &cursor, buffer.count)
        }
        guard let key else { return false }
        defer { keyFree(key) }
        guard let context = contextNew() else { return false }
        defer { contextFree(context) }
        guard verifyInit(context, nil, sha256(), nil, key) == 1 else { return false }
        let status = signature.withUnsafeBufferPointer { signatureBytes in
            message.withUnsafeBufferPointer { messageBytes in
                verify(context, signatureBytes.baseAddress, signatureBytes.count, messageBytes.baseAddress, messageBytes.count)
            }
        }
        return status == 1
    }
}
#endif
