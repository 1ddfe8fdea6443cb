#if os(Linux)
import Foundation

/// Where the WebSocket client looks for the certificate authorities it trusts.
enum WebSocketTrust: Sendable, Equatable {
    /// The system trust store through OpenSSL's defaults (`SSL_CTX_set_default_verify_paths`),
    /// which honour the `SSL_CERT_FILE` and `SSL_CERT_DIR` environment variables.
    case system
    /// Only the PEM certificates in this file (a private or test CA).
    case certificateFile(String)
}

/// One TLS client connection (TLS 1.2 or later) run by OpenSSL over memory BIOs: the caller
/// moves ciphertext between the socket and this object, so every socket call stays in the
/// caller's hands (non-blocking, `MSG_NOSIGNAL`, interruptible) and OpenSSL never touches the
/// socket.
///
/// The server's certificate chain is verified against ``WebSocketTrust`` and its name against the
/// host (`SSL_set1_host`, no partial wildcards; an IP address literal is matched against the
/// certificate's IP addresses); SNI carries the host name (never an address literal, RFC 6066 §3);
/// ALPN offers `http/1.1`. Used by one connection's I/O thread only (OpenSSL's error queue is per
/// thread).
final class TLSClientSession {
    private let library: OpenSSLLibrary
    private let ssl: OpaquePointer
    private let input: OpaquePointer
    private let output: OpaquePointer

    /// Prepares a session for `host` trusting `trust`.
    ///
    /// - Throws: ``WebSocketError/closed(code:reason:)`` with 1015 when the trust store cannot be
    ///   loaded or OpenSSL refuses the settings.
    init(library: OpenSSLLibrary, host: String, isAddressLiteral: Bool, trust: WebSocketTrust) throws(WebSocketError) {
        self.library = library
        library.errorClear()
        guard let context = library.contextNew(library.clientMethod()) else { throw Self.failure(library, "SSL_CTX_new failed") }
        defer { library.contextFree(context) }  // the session keeps its own reference
        library.contextSetVerify(context, OpenSSLLibrary.Constant.verifyPeer, nil)
        guard library.contextControl(context, OpenSSLLibrary.Constant.setMinimumProtocolVersion, OpenSSLLibrary.Constant.tls12, nil) == 1 else {
            throw Self.failure(library, "TLS 1.2 could not be set as the minimum version")
        }
        switch trust {
        case .system:
            guard library.contextDefaultPaths(context) == 1 else { throw Self.failure(library, "the system trust store could not be loaded") }
        case .certificateFile(let path):
            guard library.contextLoadLocations(context, path, nil) == 1 else {
                throw Self.failure(library, "the trusted certificate file could not be loaded")
            }
        }
        guard let ssl = library.sessionNew(context) else { throw Self.failure(library, "SSL_new failed") }
        guard let input = library.bioNew(library.memoryMethod()), let output = library.bioNew(library.memoryMethod()) else {
            library.sessionFree(ssl)
            throw Self.failure(library, "BIO_new failed")
        }
        library.setBIO(ssl, input, output)  // the session owns both BIOs from here on
        self.ssl = ssl
        self.input = input
        self.output = output
        let param = library.getParam(ssl)
        library.paramSetHostFlags(param, OpenSSLLibrary.Constant.noPartialWildcards)
        if isAddressLiteral {
            guard library.paramSetIP(param, host) == 1 else { throw Self.failure(library, "the host address could not be set for verification") }
        } else {
            guard library.setHost(ssl, host) == 1 else { throw Self.failure(library, "the host name could not be set for verification") }
            let sni = host.withCString { name in
                library.sessionControl(
                    ssl, OpenSSLLibrary.Constant.setServerName, OpenSSLLibrary.Constant.hostNameType, UnsafeMutableRawPointer(mutating: name))
            }
            guard sni == 1 else { throw Self.failure(library, "the server name (SNI) could not be set") }
        }
        let alpn = Wire.alpn
        guard alpn.withUnsafeBufferPointer({ library.setALPN(ssl, $0.baseAddress, UInt32($0.count)) }) == 0 else {
            throw Self.failure(library, "ALPN could not be set")
        }
    }

    deinit { library.sessionFree(ssl) }

    /// Advances the handshake with the ciphertext received so far; true once it is complete.
    /// Send ``takeCiphertext()`` after every call.
    ///
    /// - Throws: ``WebSocketError/closed(code:reason:)`` with 1015 and OpenSSL's reason, e.g.
    ///   "certificate verify failed: hostname mismatch".
    func handshake() throws(WebSocketError) -> Bool {
        library.errorClear()
        let result = library.connect(ssl)
        if result == 1 { return true }
        let error = library.getError(ssl, result)
        if error == OpenSSLLibrary.Constant.wantRead || error == OpenSSLLibrary.Constant.wantWrite { return false }
        let verification = library.verifyResult(ssl)
        if verification != OpenSSLLibrary.Constant.verifyOK {
            let reason = library.verifyErrorString(verification).map { String(cString: $0) } ?? "error \(verification)"
            library.errorClear()
            throw .closed(code: WebSocketCloseCode.tlsHandshakeFailure, reason: "TLS: certificate verify failed: \(reason)")
        }
        throw Self.failure(library, "the TLS handshake failed")
    }

    /// Hands ciphertext read from the socket to OpenSSL.
    func receiveCiphertext(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        _ = library.bioWrite(input, UnsafeMutableRawPointer(mutating: base), Int32(bytes.count))
    }

    /// The ciphertext OpenSSL wants sent (handshake records, application data, alerts), emptied.
    func takeCiphertext() -> [UInt8] {
        let pending = library.bioPending(output)
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = bytes.withUnsafeMutableBytes { library.bioRead(output, $0.baseAddress, Int32($0.count)) }
        return read > 0 ? Array(bytes[0..<Int(read)]) : []
    }

    /// Encrypts `plaintext` (collect it with ``takeCiphertext()``).
    ///
    /// - Throws: ``WebSocketError/closed(code:reason:)`` with 1006 when OpenSSL refuses.
    func encrypt(_ plaintext: [UInt8]) throws(WebSocketError) {
        var offset = 0
        while offset < plaintext.count {
            library.errorClear()
            let count = Int32(min(plaintext.count - offset, Int(Int32.max)))
            let written = plaintext.withUnsafeBytes { library.write(ssl, UnsafeMutableRawPointer(mutating: $0.baseAddress! + offset), count) }
            guard written > 0 else {
                throw .closed(code: WebSocketCloseCode.abnormalClosure, reason: "TLS: " + library.takeErrorDescription(fallback: "write failed"))
            }
            offset += Int(written)
        }
    }

    /// Appends to `plaintext` what the received ciphertext decrypts to, using `scratch` as the
    /// read buffer; returns true when the server sent close_notify.
    ///
    /// - Throws: ``WebSocketError/closed(code:reason:)`` with 1006 for a corrupt record or alert.
    func decrypt(appendingTo plaintext: inout [UInt8], scratch: inout [UInt8]) throws(WebSocketError) -> Bool {
        while true {
            library.errorClear()
            let read = scratch.withUnsafeMutableBytes { library.read(ssl, $0.baseAddress, Int32($0.count)) }
            if read > 0 {
                plaintext += scratch[0..<Int(read)]
                continue
            }
            let error = library.getError(ssl, read)
            if error == OpenSSLLibrary.Constant.wantRead || error == OpenSSLLibrary.Constant.wantWrite { return false }
            if error == OpenSSLLibrary.Constant.zeroReturn { return true }
            throw .closed(code: WebSocketCloseCode.abnormalClosure, reason: "TLS: " + library.takeErrorDescription(fallback: "read failed"))
        }
    }

    /// Queues close_notify (collect it with ``takeCiphertext()``).
    func shutdown() {
        library.errorClear()
        _ = library.shutdown(ssl)
        library.errorClear()
    }

    private static func failure(_ library: OpenSSLLibrary, _ fallback: String) -> WebSocketError {
        .closed(code: WebSocketCloseCode.tlsHandshakeFailure, reason: "TLS: " + library.takeErrorDescription(fallback: fallback))
    }

    private enum Wire {
        /// The ALPN protocol list: one length-prefixed name.
        static let alpn: [UInt8] = [8] + Array("http/1.1".utf8)
    }
}
#endif
