import Foundation
#if canImport(Security)
import Security
#endif

/// An RSA-2048 key pair generated for one emulator run, which signs the SIWC issuer's JWTs with
/// `RS256` (RFC 7518 §3.3) and is published in its JWKS (RFC 7517 §4, RFC 7518 §6.3.1). Built on
/// the system's crypto: `libcrypto.so.3` on Linux (``LibCrypto``), Security on Apple platforms.
///
/// The `kid` is the key's RFC 7638 JWK thumbprint (SHA-256, base64url).
final class RSASigningKey: Sendable {
    #if os(Linux)
    private typealias PrivateKey = OpaquePointer
    #elseif canImport(Security)
    private typealias PrivateKey = SecKey
    #else
    private typealias PrivateKey = Never
    #endif

    /// The JWS `kid` naming this key.
    let keyID: String
    /// The public modulus `n`, big-endian, no leading zeros.
    let modulus: [UInt8]
    /// The public exponent `e`, big-endian (65537).
    let exponent: [UInt8]
    private let privateKey: LockedBox<PrivateKey>

    private init(privateKey: PrivateKey, modulus: [UInt8], exponent: [UInt8]) {
        self.privateKey = LockedBox(privateKey)
        self.modulus = modulus
        self.exponent = exponent
        let thumbprintInput: JSONValue = [
            Wire.exponent: .string(Base64URL.encode(exponent)), Wire.keyType: .string(Wire.rsa),
            Wire.modulus: .string(Base64URL.encode(modulus)),
        ]
        self.keyID = Base64URL.encode(SHA256.digest(Array(thumbprintInput.data)))
    }

    deinit {
        #if os(Linux)
        privateKey.withLock { key in LibCrypto.shared?.keyFree(key) }
        #endif
    }

    /// The public key as a JWK for the JWKS document.
    var jwk: JSONValue {
        [
            Wire.keyType: .string(Wire.rsa), Wire.use: "sig", Wire.algorithm: "RS256", Wire.keyIDField: .string(keyID),
            Wire.modulus: .string(Base64URL.encode(modulus)), Wire.exponent: .string(Base64URL.encode(exponent)),
        ]
    }

    /// A new key, or nil when the system's crypto is unavailable or fails.
    static func generate() -> RSASigningKey? {
        #if os(Linux)
        guard let library = LibCrypto.shared, let key = library.generateRSAKey() else { return nil }
        guard let modulus = library.numberParameter(key, Wire.modulus), let exponent = library.numberParameter(key, Wire.exponent)
        else {
            library.keyFree(key)
            return nil
        }
        return RSASigningKey(privateKey: key, modulus: modulus, exponent: exponent)
        #elseif canImport(Security)
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048]
        var error: Unmanaged<CFError>?
        guard let key = SecKeyCreateRandomKey(attributes as CFDictionary, &error), let publicKey = SecKeyCopyPublicKey(key),
            let encoded = SecKeyCopyExternalRepresentation(publicKey, &error) as Data?,
            let (modulus, exponent) = Self.parseRSAPublicKey(Array(encoded))
        else { return nil }
        return RSASigningKey(privateKey: key, modulus: modulus, exponent: exponent)
        #else
        return nil
        #endif
    }

    /// The `RS256` signature of `message` (RSASSA-PKCS1-v1_5 with SHA-256), or nil on failure.
    func sign(_ message: [UInt8]) -> [UInt8]? {
        #if os(Linux)
        guard let library = LibCrypto.shared else { return nil }
        return privateKey.withLock { library.signSHA256(message, with: $0) }
        #elseif canImport(Security)
        return privateKey.withLock { key in
            var error: Unmanaged<CFError>?
            let signature = SecKeyCreateSignature(key, .rsaSignatureMessagePKCS1v15SHA256, Data(message) as CFData, &error)
            return (signature as Data?).map { Array($0) }
        }
        #else
        return nil
        #endif
    }

    /// `n` and `e` from a DER PKCS#1 `RSAPublicKey` (RFC 8017 §A.1.1:
    /// `SEQUENCE { INTEGER n, INTEGER e }`), leading zero bytes removed.
    static func parseRSAPublicKey(_ der: [UInt8]) -> (modulus: [UInt8], exponent: [UInt8])? {
        var index = 0
        /// The content of the TLV element at `index` with `tag` (DER definite lengths); advances past it.
        func element(tag: UInt8) -> ArraySlice<UInt8>? {
            guard index < der.count, der[index] == tag, index + 1 < der.count else { return nil }
            var length = Int(der[index + 1])
            index += 2
            if length & 0x80 != 0 {
                let count = length & 0x7F
                guard count > 0, count <= 4, index + count <= der.count else { return nil }
                length = der[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
                index += count
            }
            guard index + length <= der.count else { return nil }
            defer { index += length }
            return der[index..<index + length]
        }
        guard let sequence = element(tag: 0x30), sequence.endIndex == der.count else { return nil }
        index = sequence.startIndex
        guard let modulus = element(tag: 0x02), let exponent = element(tag: 0x02), index == der.count else { return nil }
        func trimmed(_ bytes: ArraySlice<UInt8>) -> [UInt8] { Array(bytes.drop { $0 == 0 }) }
        return (trimmed(modulus), trimmed(exponent))
    }

    private enum Wire {
        static let keyType = "kty"
        static let rsa = "RSA"
        static let use = "use"
        static let algorithm = "alg"
        static let keyIDField = "kid"
        static let modulus = "n"
        static let exponent = "e"
    }
}
