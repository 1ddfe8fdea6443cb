import ChappieTestSupport
import Foundation

/// Verifies an RS256 JWS against an RSA JWK with the `openssl` command-line tool, a verifier the
/// emulator does not share code with: the JWK's `n` and `e` become a DER SubjectPublicKeyInfo
/// (RFC 5280 §4.1, RFC 8017 §A.1.1), then `openssl dgst -sha256 -verify` checks the signature
/// over `header.payload`.
enum OpenSSLVerifier {
    /// Whether `/usr/bin/openssl` exists.
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") }

    /// Whether `token`'s signature verifies with the key `n`/`e` (base64url).
    static func verify(_ token: String, modulus: String, exponent: String) async throws -> Bool {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let n = decode(modulus), let e = decode(exponent), let signature = decode(parts[2]) else {
            return false
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("siwc-verify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = folder.appendingPathComponent("key.der"), input = folder.appendingPathComponent("input")
        let signatureFile = folder.appendingPathComponent("sig")
        try Data(subjectPublicKeyInfo(modulus: n, exponent: e)).write(to: key)
        try Data((parts[0] + "." + parts[1]).utf8).write(to: input)
        try Data(signature).write(to: signatureFile)
        let arguments = ["dgst", "-sha256", "-keyform", "DER", "-verify", key.path, "-signature", signatureFile.path, input.path]
        guard let openssl = try? TestProcess("/usr/bin/openssl", arguments, output: .discard, error: .discard) else { return false }
        return try await openssl.wait().succeeded
    }

    private static func decode(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }

    private static func subjectPublicKeyInfo(modulus: [UInt8], exponent: [UInt8]) -> [UInt8] {
        func length(_ count: Int) -> [UInt8] {
            if count < 0x80 { return [UInt8(count)] }
            var bytes = [UInt8]()
            var value = count
            while value > 0 { bytes.insert(UInt8(value & 0xFF), at: 0); value >>= 8 }
            return [0x80 | UInt8(bytes.count)] + bytes
        }
        func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag] + length(content.count) + content }
        func integer(_ bytes: [UInt8]) -> [UInt8] { element(0x02, (bytes.first ?? 0) & 0x80 != 0 ? [0] + bytes : bytes) }
        let rsaKey = element(0x30, integer(modulus) + integer(exponent))
        let algorithm = element(0x30, [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00])
        return element(0x30, algorithm + element(0x03, [0] + rsaKey))
    }
}
