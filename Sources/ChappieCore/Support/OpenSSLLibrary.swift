#if os(Linux)
import Foundation

/// The OpenSSL 3 functions the WebSocket client uses, from the system's `libssl.so.3` and
/// `libcrypto.so.3` loaded at run time (``SystemLibrary``): a TLS client over memory BIOs
/// (``TLSClientSession``), certificate verification against a trust store, and SHA-1 for the
/// handshake's `Sec-WebSocket-Accept`.
///
/// Signatures follow OpenSSL 3.0's `ssl.h`, `bio.h`, `x509_vfy.h`, `err.h` and `evp.h`; macros
/// such as `SSL_CTX_set_min_proto_version` and `SSL_set_tlsext_host_name` are their `…_ctrl`
/// calls with the constants in ``Constant``.
struct OpenSSLLibrary: Sendable {
    // C function pointer types are Sendable: they capture nothing.
    typealias Method = @convention(c) () -> OpaquePointer?
    typealias ContextNew = @convention(c) (OpaquePointer?) -> OpaquePointer?
    typealias ContextFree = @convention(c) (OpaquePointer?) -> Void
    typealias ContextDefaultPaths = @convention(c) (OpaquePointer?) -> Int32
    typealias ContextLoadLocations = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    typealias ContextSetVerify = @convention(c) (OpaquePointer?, Int32, OpaquePointer?) -> Void
    typealias Control = @convention(c) (OpaquePointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int
    typealias SessionNew = @convention(c) (OpaquePointer?) -> OpaquePointer?
    typealias SessionFree = @convention(c) (OpaquePointer?) -> Void
    typealias SetBIO = @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?) -> Void
    typealias SetHost = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
    typealias GetParam = @convention(c) (OpaquePointer?) -> OpaquePointer?
    typealias SetALPN = @convention(c) (OpaquePointer?, UnsafePointer<UInt8>?, UInt32) -> Int32
    typealias Step = @convention(c) (OpaquePointer?) -> Int32
    typealias ReadWrite = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Int32
    typealias GetError = @convention(c) (OpaquePointer?, Int32) -> Int32
    typealias VerifyResult = @convention(c) (OpaquePointer?) -> Int
    typealias BIONew = @convention(c) (OpaquePointer?) -> OpaquePointer?
    typealias BIOPending = @convention(c) (OpaquePointer?) -> Int
    typealias ParamSetIP = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
    typealias ParamSetHostFlags = @convention(c) (OpaquePointer?, UInt32) -> Void
    typealias VerifyErrorString = @convention(c) (Int) -> UnsafePointer<CChar>?
    typealias ErrorGet = @convention(c) () -> UInt
    typealias ErrorString = @convention(c) (UInt, UnsafeMutablePointer<CChar>?, Int) -> Void
    typealias ErrorClear = @convention(c) () -> Void
    typealias Digest = @convention(c) (
        UnsafeRawPointer?, Int, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt32>?, OpaquePointer?, OpaquePointer?
    ) -> Int32

    /// Constants from OpenSSL 3.0's headers.
    enum Constant {
        /// `SSL_VERIFY_PEER`.
        static let verifyPeer: Int32 = 1
        /// `SSL_CTRL_SET_MIN_PROTO_VERSION`.
        static let setMinimumProtocolVersion: Int32 = 123
        /// `TLS1_2_VERSION`.
        static let tls12: Int = 0x0303
        /// `SSL_CTRL_SET_TLSEXT_HOSTNAME`.
        static let setServerName: Int32 = 55
        /// `TLSEXT_NAMETYPE_host_name`.
        static let hostNameType: Int = 0
        /// `X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS`.
        static let noPartialWildcards: UInt32 = 0x4
        /// `SSL_ERROR_WANT_READ`.
        static let wantRead: Int32 = 2
        /// `SSL_ERROR_WANT_WRITE`.
        static let wantWrite: Int32 = 3
        /// `SSL_ERROR_ZERO_RETURN`: the peer sent close_notify.
        static let zeroReturn: Int32 = 6
        /// `X509_V_OK`.
        static let verifyOK = 0
    }

    let clientMethod: Method
    let contextNew: ContextNew
    let contextFree: ContextFree
    let contextDefaultPaths: ContextDefaultPaths
    let contextLoadLocations: ContextLoadLocations
    let contextSetVerify: ContextSetVerify
    let contextControl: Control
    let sessionNew: SessionNew
    let sessionFree: SessionFree
    let setBIO: SetBIO
    let sessionControl: Control
    let setHost: SetHost
    let getParam: GetParam
    let setALPN: SetALPN
    let connect: Step
    let read: ReadWrite
    let write: ReadWrite
    let getError: GetError
    let shutdown: Step
    let verifyResult: VerifyResult
    let memoryMethod: Method
    let bioNew: BIONew
    let bioRead: ReadWrite
    let bioWrite: ReadWrite
    let bioPending: BIOPending
    let paramSetIP: ParamSetIP
    let paramSetHostFlags: ParamSetHostFlags
    let verifyErrorString: VerifyErrorString
    let errorGet: ErrorGet
    let errorString: ErrorString
    let errorClear: ErrorClear
    let sha1Method: Method
    let digest: Digest

    /// The libraries as Debian, Ubuntu and Fedora name them.
    static let defaultLibraryNames = (ssl: "libssl.so.3", crypto: "libcrypto.so.3")

    /// The default libraries, loaded once per process.
    static let shared = Result { () throws(SystemLibrary.LoadError) in try load() }

    /// Loads the libraries and resolves every function.
    ///
    /// - Throws: ``SystemLibrary/LoadError`` naming the missing library or function.
    static func load(
        ssl: String = defaultLibraryNames.ssl, crypto: String = defaultLibraryNames.crypto
    ) throws(SystemLibrary.LoadError) -> OpenSSLLibrary {
        let cryptoHandle = try SystemLibrary.open(crypto)
        let sslHandle = try SystemLibrary.open(ssl)
        func s<Function>(_ name: String, _ type: Function.Type) throws(SystemLibrary.LoadError) -> Function {
            try SystemLibrary.function(sslHandle, name, library: ssl, as: type)
        }
        func c<Function>(_ name: String, _ type: Function.Type) throws(SystemLibrary.LoadError) -> Function {
            try SystemLibrary.function(cryptoHandle, name, library: crypto, as: type)
        }
        return OpenSSLLibrary(
            clientMethod: try s("TLS_client_method", Method.self),
            contextNew: try s("SSL_CTX_new", ContextNew.self),
            contextFree: try s("SSL_CTX_free", ContextFree.self),
            contextDefaultPaths: try s("SSL_CTX_set_default_verify_paths", ContextDefaultPaths.self),
            contextLoadLocations: try s("SSL_CTX_load_verify_locations", ContextLoadLocations.self),
            contextSetVerify: try s("SSL_CTX_set_verify", ContextSetVerify.self),
            contextControl: try s("SSL_CTX_ctrl", Control.self),
            sessionNew: try s("SSL_new", SessionNew.self),
            sessionFree: try s("SSL_free", SessionFree.self),
            setBIO: try s("SSL_set_bio", SetBIO.self),
            sessionControl: try s("SSL_ctrl", Control.self),
            setHost: try s("SSL_set1_host", SetHost.self),
            getParam: try s("SSL_get0_param", GetParam.self),
            setALPN: try s("SSL_set_alpn_protos", SetALPN.self),
            connect: try s("SSL_connect", Step.self),
            read: try s("SSL_read", ReadWrite.self),
            write: try s("SSL_write", ReadWrite.self),
            getError: try s("SSL_get_error", GetError.self),
            shutdown: try s("SSL_shutdown", Step.self),
            verifyResult: try s("SSL_get_verify_result", VerifyResult.self),
            memoryMethod: try c("BIO_s_mem", Method.self),
            bioNew: try c("BIO_new", BIONew.self),
            bioRead: try c("BIO_read", ReadWrite.self),
            bioWrite: try c("BIO_write", ReadWrite.self),
            bioPending: try c("BIO_ctrl_pending", BIOPending.self),
            paramSetIP: try c("X509_VERIFY_PARAM_set1_ip_asc", ParamSetIP.self),
            paramSetHostFlags: try c("X509_VERIFY_PARAM_set_hostflags", ParamSetHostFlags.self),
            verifyErrorString: try c("X509_verify_cert_error_string", VerifyErrorString.self),
            errorGet: try c("ERR_get_error", ErrorGet.self),
            errorString: try c("ERR_error_string_n", ErrorString.self),
            errorClear: try c("ERR_clear_error", ErrorClear.self),
            sha1Method: try c("EVP_sha1", Method.self),
            digest: try c("EVP_Digest", Digest.self)
        )
    }

    /// The SHA-1 digest (20 bytes) of `bytes`, through `EVP_Digest`.
    func sha1(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        let status = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBufferPointer { digest(input.baseAddress, input.count, $0.baseAddress, &length, sha1Method(), nil) }
        }
        precondition(status == 1 && length == 20, "EVP_Digest(SHA-1) failed")
        return output
    }

    /// The oldest queued OpenSSL error of this thread as text (then the queue is cleared), or
    /// `fallback` when there is none.
    func takeErrorDescription(fallback: String) -> String {
        let code = errorGet()
        defer { errorClear() }
        guard code != 0 else { return fallback }
        var buffer = [CChar](repeating: 0, count: 256)
        buffer.withUnsafeMutableBufferPointer { errorString(code, $0.baseAddress, $0.count) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
#endif
