import Foundation

/// A certificate authority and a server certificate made for one emulator run with the system
/// `openssl` command, in a private temporary folder: the CA (EC P-256, valid two days) signs a
/// certificate for `localhost` and `127.0.0.1`. Clients trust ``authorityPath`` (Codex:
/// `CODEX_CA_CERTIFICATE`; curl and OpenSSL-based clients: `SSL_CERT_FILE`). ``remove()`` deletes
/// the folder, keys included.
struct EmulatorCertificateAuthority: Sendable {
    /// Why the certificates could not be made.
    struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// What failed (the `openssl` subcommand, or the folder).
        var step: String
        var description: String { "could not make the emulator's TLS certificates: \(step)" }
    }

    /// The folder holding the files.
    let folder: URL
    /// The CA certificate (PEM): the file clients trust.
    var authorityPath: String { folder.appendingPathComponent(Wire.authority).path }
    /// The server certificate chain (PEM): the server certificate, then the CA.
    var chainPath: String { folder.appendingPathComponent(Wire.chain).path }
    /// The server's private key (PEM).
    var keyPath: String { folder.appendingPathComponent(Wire.serverKey).path }

    /// Makes the CA and the server certificate with `openssl` (found on `PATH`).
    static func make() throws(Failure) -> EmulatorCertificateAuthority {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chappie-emulator-tls-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw Failure(step: "the temporary folder")
        }
        let authority = EmulatorCertificateAuthority(folder: folder)
        do throws(Failure) {
            let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
            try authority.openssl(["req", "-x509", "-new"] + key + [
                "-keyout", Wire.authorityKey, "-out", Wire.authority, "-days", "2", "-subj", "/CN=Chappie Emulator CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
            try authority.openssl(["req", "-new"] + key + ["-keyout", Wire.serverKey, "-out", "server.csr", "-subj", "/CN=localhost"])
            let extensions = "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n"
            try? extensions.write(to: folder.appendingPathComponent("server.ext"), atomically: true, encoding: .utf8)
            try authority.openssl([
                "x509", "-req", "-in", "server.csr", "-CA", Wire.authority, "-CAkey", Wire.authorityKey, "-CAcreateserial",
                "-out", "server.pem", "-days", "2", "-extfile", "server.ext",
            ])
            let server = try? Data(contentsOf: folder.appendingPathComponent("server.pem"))
            let ca = try? Data(contentsOf: folder.appendingPathComponent(Wire.authority))
            guard let server, let ca, (try? (server + ca).write(to: folder.appendingPathComponent(Wire.chain))) != nil else {
                throw Failure(step: "the certificate chain")
            }
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(Wire.authorityKey))
        } catch {
            authority.remove()
            throw error
        }
        return authority
    }

    /// Deletes the folder and everything in it.
    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }

    private func openssl(_ arguments: [String]) throws(Failure) {
        #if canImport(Darwin) && !os(macOS)
        // iOS and its siblings run no other programs: no certificate authority, so no TLS listener.
        throw Failure(step: "openssl cannot run on this platform")
        #else
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = folder
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { throw Failure(step: "openssl is not installed") }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(step: "openssl \(arguments.first ?? "")") }
        #endif
    }

    private enum Wire {
        static let authority = "ca.pem"
        static let authorityKey = "ca.key"
        static let chain = "server-chain.pem"
        static let serverKey = "server.key"
    }
}
