import Foundation
@testable import ChappieCore
#if canImport(Glibc)
import Glibc
#endif

/// An RSA key made at run time by the system's libcrypto, to sign test ID tokens (RS256) the
/// SDK then verifies. Linux only, as the tests run here.
final class TestSigningKey: @unchecked Sendable {
    typealias CtxNewID = @convention(c) (Int32, OpaquePointer?) -> OpaquePointer?
    typealias CtxInt = @convention(c) (OpaquePointer?) -> Int32
    typealias CtxSetBits = @convention(c) (OpaquePointer?, Int32) -> Int32
    typealias Generate = @convention(c) (OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias Free = @convention(c) (OpaquePointer?) -> Void
    typealias GetBN = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias BNBits = @convention(c) (OpaquePointer?) -> Int32
    typealias BNToBin = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?) -> Int32
    typealias MDNew = @convention(c) () -> OpaquePointer?
    typealias Method = @convention(c) () -> OpaquePointer?
    typealias SignInit = @convention(c) (OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?, OpaquePointer?, OpaquePointer?, OpaquePointer?) -> Int32
    typealias Sign = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>?, UnsafePointer<UInt8>?, Int) -> Int32

    private static func fn<T>(_ name: String, _: T.Type) -> T {
        unsafeBitCast(dlsym(dlopen("libcrypto.so.3", RTLD_NOW), name)!, to: T.self)
    }

    let kid: String
    let modulus: [UInt8]
    let exponent: [UInt8]
    private let key: OpaquePointer

    static let primary = TestSigningKey(kid: "test-key-1")
    static let other = TestSigningKey(kid: "test-key-2")

    init(kid: String) {
        self.kid = kid
        let context = Self.fn("EVP_PKEY_CTX_new_id", CtxNewID.self)(6, nil)
        precondition(Self.fn("EVP_PKEY_keygen_init", CtxInt.self)(context) == 1)
        precondition(Self.fn("EVP_PKEY_CTX_set_rsa_keygen_bits", CtxSetBits.self)(context, 2048) == 1)
        var generated: OpaquePointer?
        precondition(Self.fn("EVP_PKEY_generate", Generate.self)(context, &generated) == 1)
        Self.fn("EVP_PKEY_CTX_free", Free.self)(context)
        key = generated!
        func parameter(_ name: String) -> [UInt8] {
            var number: OpaquePointer?
            precondition(Self.fn("EVP_PKEY_get_bn_param", GetBN.self)(generated, name, &number) == 1)
            let bytes = (Int(Self.fn("BN_num_bits", BNBits.self)(number)) + 7) / 8
            var output = [UInt8](repeating: 0, count: bytes)
            _ = Self.fn("BN_bn2bin", BNToBin.self)(number, &output)
            Self.fn("BN_free", Free.self)(number)
            return output
        }
        modulus = parameter("n")
        exponent = parameter("e")
    }

    /// The public key as a JWKS entry.
    var jwk: ChappieJSONValue {
        ["kty": "RSA", "use": "sig", "alg": "RS256", "kid": .string(kid),
         "n": .string(Base64URL.encode(Data(modulus))), "e": .string(Base64URL.encode(Data(exponent)))]
    }

    /// `header.payload.signature` signed with RS256; `kid` overrides the header's key id.
    func sign(_ claims: ChappieJSONValue, kid: String? = nil) -> String {
        let header: ChappieJSONValue = ["alg": "RS256", "typ": "JWT", "kid": .string(kid ?? self.kid)]
        let input = Base64URL.encode(Data(header.jsonString.utf8)) + "." + Base64URL.encode(Data(claims.jsonString.utf8))
        let md = Self.fn("EVP_MD_CTX_new", MDNew.self)()
        defer { Self.fn("EVP_MD_CTX_free", Free.self)(md) }
        precondition(Self.fn("EVP_DigestSignInit", SignInit.self)(md, nil, Self.fn("EVP_sha256", Method.self)(), nil, key) == 1)
        let message = Array(input.utf8)
        var length = 0
        let sign = Self.fn("EVP_DigestSign", Sign.self)
        precondition(sign(md, nil, &length, message, message.count) == 1)
        var signature = [UInt8](repeating: 0, count: length)
        precondition(sign(md, &signature, &length, message, message.count) == 1)
        return input + "." + Base64URL.encode(Data(signature.prefix(length)))
    }
}
