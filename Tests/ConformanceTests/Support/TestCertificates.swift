import ChappieTestSupport
import Foundation

/// A throwaway certificate authority and server certificates made with the `openssl` command in a
/// temporary folder, for the `wss` tests: a CA, a server certificate it signed for `localhost` and
/// `127.0.0.1`, one it signed for `other.example` only, and a self-signed one for `localhost`.
/// EC P-256 keys, valid for two days. ``remove()`` deletes the folder.
struct TestCertificates {
    /// A certificate and its private key (PEM file paths).
    struct Pair {
        /// The certificate chain file.
        var certificate: String
        /// The private key file.
        var key: String
    }

    /// The folder holding everything.
    let folder: URL
    /// The CA certificate (the trust file for the client).
    var authority: String { folder.appendingPathComponent("ca.pem").path }
    /// Signed by the CA for `localhost` and `127.0.0.1`.
    var server: Pair { pair("server") }
    /// Signed by the CA for `other.example` only.
    var otherName: Pair { pair("other") }
    /// Self-signed for `localhost` and `127.0.0.1` (not in the trust file).
    var selfSigned: Pair { pair("self") }

    /// Whether the `openssl` command is installed.
    static let isAvailable = TestProcess.runSynchronously(ClientAvailability.python, ["openssl", "version"])?.succeeded == true

    /// Makes the CA and the certificates.
    static func make() async throws -> TestCertificates {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chappie-test-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let certificates = TestCertificates(folder: folder)
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await certificates.openssl(["req", "-x509", "-new"] + key + [
            "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Chappie Test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        for (name, subject, names) in [("server", "localhost", "DNS:localhost,IP:127.0.0.1"), ("other", "other.example", "DNS:other.example")] {
            try await certificates.openssl(["req", "-new"] + key + ["-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(subject)"])
            let extensions = "subjectAltName=\(names)\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n"
            try extensions.write(to: folder.appendingPathComponent("\(name).ext"), atomically: true, encoding: .utf8)
            try await certificates.openssl([
                "x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "\(name).pem", "-days", "2",
                "-extfile", "\(name).ext",
            ])
        }
        try await certificates.openssl(["req", "-x509", "-new"] + key + [
            "-keyout", "self.key", "-out", "self.pem", "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ])
        return certificates
    }

    /// Deletes the folder.
    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }

    private func pair(_ name: String) -> Pair {
        Pair(certificate: folder.appendingPathComponent("\(name).pem").path, key: folder.appendingPathComponent("\(name).key").path)
    }

    private func openssl(_ arguments: [String]) async throws {
        let result = try await TestProcess.run(ClientAvailability.python, ["openssl"] + arguments, currentDirectory: folder, timeLimit: .seconds(60))
        guard result.status == 0 else { throw Failure(message: "openssl \(arguments.first ?? "") failed: \(result.stderr)") }
    }

    /// An `openssl` command failed.
    struct Failure: Error, CustomStringConvertible {
        /// What failed, with openssl's standard error.
        var message: String
        var description: String { message }
    }
}
