import Foundation

extension ChappieEmulator {
    /// The emulator served over HTTPS (and `wss`) too: a TLS front end on its own loopback port
    /// with a certificate for `localhost` and `127.0.0.1`, signed by a certificate authority made
    /// for this run. Every route of the emulator answers there, so a client that insists on an
    /// `https` origin (the Codex CLI's built-in provider) can use the emulator. Trust
    /// ``certificateAuthorityPath`` in the client (the Codex CLI: `CODEX_CA_CERTIFICATE`).
    /// Start one with ``ChappieEmulator/startTLS()``; ``shutdown()`` stops it and deletes the
    /// certificates.
    public final class TLSEndpoint: Sendable {
        /// The TLS port on 127.0.0.1.
        public let port: Int
        /// The PEM file of the certificate authority that signed the server certificate.
        public var certificateAuthorityPath: String { authority.authorityPath }
        /// `https://127.0.0.1:<port>`: the issuer base URL over TLS.
        public var baseURL: URL { URL(string: "https://127.0.0.1:\(port)")! }
        /// `<baseURL>/backend-api`: the backend base over TLS.
        public var backendBaseURL: URL { baseURL.appendingPathComponent("backend-api") }

        private let frontEnd: TLSFrontEnd
        private let authority: EmulatorCertificateAuthority

        fileprivate init(frontEnd: TLSFrontEnd, authority: EmulatorCertificateAuthority) {
            self.frontEnd = frontEnd
            self.authority = authority
            port = frontEnd.port
        }

        /// Stops the TLS listener, closes its connections and deletes the certificates. Calling it
        /// twice is harmless.
        public func shutdown() async {
            await frontEnd.shutdown()
            authority.remove()
        }
    }

    /// Why ``startTLS()`` failed.
    public enum TLSStartError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
        /// The `openssl` command is missing or failed; the step that failed.
        case certificates(String)
        /// OpenSSL 3 (`libssl.so.3`) could not be loaded, or it refused the certificate.
        case library
        /// A socket call failed with this `errno`.
        case socket(errno: Int32)

        /// A one-line description, with what to do.
        public var errorDescription: String? { description }

        /// A one-line description, with what to do.
        public var description: String {
            switch self {
            case .certificates(let step): "The emulator's TLS certificates could not be made (\(step)); install the openssl command."
            case .library: "The emulator's TLS listener needs OpenSSL 3 (libssl.so.3)."
            case .socket(let code): "The emulator's TLS listener could not open a socket (errno \(code))."
            }
        }
    }

    /// Starts an HTTPS front end for this emulator: makes a certificate authority and a server
    /// certificate with the system `openssl` command, and relays TLS connections on a new loopback
    /// port to the emulator. `/backend-api/wham/accounts/check` then names the TLS origin to
    /// clients that come through it.
    ///
    /// - Throws: ``TLSStartError``.
    public func startTLS() async throws -> TLSEndpoint {
        let authority: EmulatorCertificateAuthority
        do throws(EmulatorCertificateAuthority.Failure) {
            authority = try EmulatorCertificateAuthority.make()
        } catch {
            throw TLSStartError.certificates(error.step)
        }
        do throws(TLSFrontEnd.StartError) {
            let frontEnd = try TLSFrontEnd(backendPort: port, certificateFile: authority.chainPath, keyFile: authority.keyPath)
            services.setTLSPort(frontEnd.port)
            return TLSEndpoint(frontEnd: frontEnd, authority: authority)
        } catch {
            authority.remove()
            switch error {
            case .libraryUnavailable, .certificate: throw TLSStartError.library
            case .socket(let code): throw TLSStartError.socket(errno: code)
            }
        }
    }
}
