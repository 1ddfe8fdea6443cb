import ChappieTransport
import Foundation
#if canImport(Security)
import Security
#endif

/// An RSA public key from a JWKS entry (RFC 7517 §4, RFC 7518 §6.3.1: `kty` `RSA`, base64url `n`
/// and `e`), and the RS256 check of a signature against it with the system's crypto: Security's
/// `SecKey` on Apple platforms, `libcrypto` (loaded at run time) on Linux.
struct RSAPublicKey: Sendable, Equatable {
    /// The modulus, big-endian, without leading zero bytes.
    let modulus: [UInt8]
    /// The public exponent, big-endian, without leading zero bytes.
    let exponent: [UInt8]

    /// A key from its JWK members; nil when either is empty or not base64url, or the modulus is
    /// shorter than 2048 bits.
    init?(modulus n: String, exponent e: String) {
        guard let n = Base64URL.decode(n), let e = Base64URL.decode(e) else { return nil }
        let modulus = Array(n.drop { $0 == 0 })
        let exponent = Array(e.drop { $0 == 0 })
        guard modulus.count >= 256, !exponent.isEmpty else { return nil }
        self.modulus = modulus
        self.exponent = exponent
    }

    /// Whether `signature` is a valid RSASSA-PKCS1-v1_5 SHA-256 signature of `message`.
    func verifiesRS256(signature: [UInt8], message: [UInt8]) -> Bool {
        #if canImport(Security)
        let attributes: [CFString: Any] = [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeyClass: kSecAttrKeyClassPublic]
        guard let key = SecKeyCreateWithData(Data(pkcs1) as CFData, attributes as CFDictionary, nil) else { return false }
        return SecKeyVerifySignature(key, .rsaSignatureMessagePKCS1v15SHA256, Data(message) as CFData, Data(signature) as CFData, nil)
        #elseif os(Linux)
        guard case .success(let library) = LibCryptoRSA.shared else { return false }
        return library.verifyRS256(subjectPublicKeyInfo: subjectPublicKeyInfo, message: message, signature: signature)
        #else
        return false
        #endif
    }

    /// Whether the platform's RSA verifier can be used (on Linux: libcrypto loads).
    static var verifierAvailable: Bool {
        #if canImport(Security)
        true
        #elseif os(Linux)
        if case .success = LibCryptoRSA.shared { true } else { false }
        #else
        false
        #endif
    }

    /// `RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }` (RFC 8017 §A.1.1), DER.
    var pkcs1: [UInt8] {
        DER.sequence(DER.integer(modulus) + DER.integer(exponent))
    }

    /// `SubjectPublicKeyInfo` with the `rsaEncryption` algorithm (RFC 5280 §4.1, RFC 3279 §2.3.1), DER.
    var subjectPublicKeyInfo: [UInt8] {
        let algorithm = DER.sequence(Wire.rsaEncryptionOID + [0x05, 0x00])
        return DER.sequence(algorithm + DER.bitString(pkcs1))
    }

    private enum Wire {
        /// OBJECT IDENTIFIER 1.2.840.113549.1.1.1.
        static let rsaEncryptionOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    }
}

/// The few DER encodings (X.690 §8) a public key needs.
enum DER {
    static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var remaining = count
        while remaining > 0 { bytes.insert(UInt8(remaining & 0xFF), at: 0); remaining >>= 8 }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    static func sequence(_ content: [UInt8]) -> [UInt8] { [0x30] + length(content.count) + content }

    /// A non-negative INTEGER from big-endian magnitude bytes.
    static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        let content = (magnitude.first ?? 0) & 0x80 != 0 ? [0] + magnitude : (magnitude.isEmpty ? [0] : magnitude)
        return [0x02] + length(content.count) + content
    }

    static func bitString(_ content: [UInt8]) -> [UInt8] { [0x03] + length(content.count + 1) + [0x00] + content }
}
