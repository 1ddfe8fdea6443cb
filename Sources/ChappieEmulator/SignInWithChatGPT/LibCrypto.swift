#if os(Linux)
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The few OpenSSL 3 functions the SIWC issuer signs with, from the system's `libcrypto.so.3`
/// loaded at run time with `dlopen` (the package links nothing outside the toolchain; the SDK has
/// its own loader for the same library, which this target cannot import). Signatures follow
/// OpenSSL 3.0's `evp.h` and `bn.h`.
///
/// Only non-variadic functions are used: `EVP_RSA_gen` is a macro around the variadic
/// `EVP_PKEY_Q_keygen`, so a key is made with `EVP_PKEY_CTX_new_from_name` + `EVP_PKEY_generate`
/// (2048-bit RSA, exponent 65537: OpenSSL's defaults).
struct LibCrypto: Sendable {
    // C function pointer types are Sendable: they capture nothing.
    typealias ContextFromName = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> OpaquePointer?
    typealias ContextStep = @convention(c) (OpaquePointer?) -> Int32
    typealias Generate = @convention(c) (OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias Free = @convention(c) (OpaquePointer?) -> Void
    typealias GetNumberParameter = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias NumberBits = @convention(c) (OpaquePointer?) -> Int32
    typealias NumberToBytes = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?) -> Int32
    typealias DigestContextNew = @convention(c) () -> OpaquePointer?
    typealias Method = @convention(c) () -> OpaquePointer?
    typealias DigestSignInit = @convention(c) (
        OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?, OpaquePointer?, OpaquePointer?, OpaquePointer?
    ) -> Int32
    typealias DigestSign = @convention(c) (
        OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>?, UnsafePointer<UInt8>?, Int
    ) -> Int32

    let contextFromName: ContextFromName
    let keygenInit: ContextStep
    let generate: Generate
    let contextFree: Free
    let keyFree: Free
    let getNumberParameter: GetNumberParameter
    let numberBits: NumberBits
    let numberToBytes: NumberToBytes
    let numberFree: Free
    let digestContextNew: DigestContextNew
    let digestContextFree: Free
    let sha256: Method
    let digestSignInit: DigestSignInit
    let digestSign: DigestSign

    /// The library, loaded once per process; nil when `libcrypto.so.3` or a function is missing.
    static let shared: LibCrypto? = load()

    private static func load() -> LibCrypto? {
        guard let handle = dlopen(Wire.libraryName, RTLD_NOW | RTLD_LOCAL) else { return nil }
        func function<Function>(_ name: String, _ type: Function.Type) -> Function? {
            dlsym(handle, name).map { unsafeBitCast($0, to: type) }
        }
        guard let contextFromName = function("EVP_PKEY_CTX_new_from_name", ContextFromName.self),
            let keygenInit = function("EVP_PKEY_keygen_init", ContextStep.self),
            let generate = function("EVP_PKEY_generate", Generate.self),
            let contextFree = function("EVP_PKEY_CTX_free", Free.self),
            let keyFree = function("EVP_PKEY_free", Free.self),
            let getNumberParameter = function("EVP_PKEY_get_bn_param", GetNumberParameter.self),
            let numberBits = function("BN_num_bits", NumberBits.self),
            let numberToBytes = function("BN_bn2bin", NumberToBytes.self),
            let numberFree = function("BN_free", Free.self),
            let digestContextNew = function("EVP_MD_CTX_new", DigestContextNew.self),
            let digestContextFree = function("EVP_MD_CTX_free", Free.self),
            let sha256 = function("EVP_sha256", Method.self),
            let digestSignInit = function("EVP_DigestSignInit", DigestSignInit.self),
            let digestSign = function("EVP_DigestSign", DigestSign.self)
        else { return nil }
        return LibCrypto(
            contextFromName: contextFromName, keygenInit: keygenInit, generate: generate, contextFree: contextFree,
            keyFree: keyFree, getNumberParameter: getNumberParameter, numberBits: numberBits,
            numberToBytes: numberToBytes, numberFree: numberFree, digestContextNew: digestContextNew,
            digestContextFree: digestContextFree, sha256: sha256, digestSignInit: digestSignInit, digestSign: digestSign
        )
    }

    /// A new 2048-bit RSA key (`EVP_PKEY*`), or nil when generation fails. Free it with ``keyFree``.
    func generateRSAKey() -> OpaquePointer? {
        guard let context = contextFromName(nil, Wire.rsa, nil) else { return nil }
        defer { contextFree(context) }
        guard keygenInit(context) == 1 else { return nil }
        var key: OpaquePointer?
        guard generate(context, &key) == 1 else { return nil }
        return key
    }

    /// The big-endian bytes of the key's number parameter `name` (`n` or `e`), without leading zeros.
    func numberParameter(_ key: OpaquePointer, _ name: String) -> [UInt8]? {
        var number: OpaquePointer?
        guard getNumberParameter(key, name, &number) == 1, let number else { return nil }
        defer { numberFree(number) }
        var bytes = [UInt8](repeating: 0, count: (Int(numberBits(number)) + 7) / 8)
        let written = bytes.withUnsafeMutableBufferPointer { numberToBytes(number, $0.baseAddress) }
        return written == bytes.count ? bytes : nil
    }

    /// An RSASSA-PKCS1-v1_5 signature with SHA-256 (RFC 8017 §8.2, JWS `RS256`) of `message`.
    func signSHA256(_ message: [UInt8], with key: OpaquePointer) -> [UInt8]? {
        guard let context = digestContextNew() else { return nil }
        defer { digestContextFree(context) }
        guard digestSignInit(context, nil, sha256(), nil, key) == 1 else { return nil }
        var length = 0
        guard message.withUnsafeBufferPointer({ digestSign(context, nil, &length, $0.baseAddress, $0.count) }) == 1 else {
            return nil
        }
        var signature = [UInt8](repeating: 0, count: length)
        let status = signature.withUnsafeMutableBufferPointer { output in
            message.withUnsafeBufferPointer { digestSign(context, output.baseAddress, &length, $0.baseAddress, $0.count) }
        }
        guard status == 1 else { return nil }
        return Array(signature.prefix(length))
    }

    private enum Wire {
        static let libraryName = "libcrypto.so.3"
        static let rsa = "RSA"
    }
}
#endif
