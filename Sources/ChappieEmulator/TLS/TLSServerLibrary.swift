import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The OpenSSL 3 functions the emulator's TLS front end needs, from the system's `libssl.so.3`
/// loaded at run time with `dlopen` (the package links nothing outside the toolchain): a server
/// context with a certificate chain and key from PEM files, and blocking `SSL_accept`,
/// `SSL_read`, `SSL_write` on a socket. Signatures follow OpenSSL 3.0's `ssl.h`.
struct TLSServerLibrary: Sendable {
    typealias Method = @convention(c) () -> OpaquePointer?
    typealias ContextNew = @convention(c) (OpaquePointer?) -> OpaquePointer?
    typealias Free = @convention(c) (OpaquePointer?) -> Void
    typealias UseFile = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32
    typealias UseChainFile = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
    typealias SessionNew = @convention(c) (OpaquePointer?) -> OpaquePointer?
    typealias SetFD = @convention(c) (OpaquePointer?, Int32) -> Int32
    typealias Step = @convention(c) (OpaquePointer?) -> Int32
    typealias ReadWrite = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Int32
    typealias GetError = @convention(c) (OpaquePointer?, Int32) -> Int32

    /// `SSL_FILETYPE_PEM`.
    static let pemFileType: Int32 = 1

    let serverMethod: Method
    let contextNew: ContextNew
    let contextFree: Free
    let useCertificateChainFile: UseChainFile
    let usePrivateKeyFile: UseFile
    let sessionNew: SessionNew
    let sessionFree: Free
    let setFD: SetFD
    let accept: Step
    let read: ReadWrite
    let write: ReadWrite
    let pending: Step
    let getError: GetError
    let shutdown: Step

    /// The library as Debian, Ubuntu and Fedora name it.
    static let libraryName = "libssl.so.3"

    /// The library, loaded once per process; nil when it or one of its functions is missing.
    static let shared: TLSServerLibrary? = load()

    private static func load() -> TLSServerLibrary? {
        guard let handle = dlopen(libraryName, RTLD_NOW | RTLD_LOCAL) else { return nil }
        func f<Function>(_ name: String, _ type: Function.Type) -> Function? {
            dlsym(handle, name).map { unsafeBitCast($0, to: type) }
        }
        guard let serverMethod = f("TLS_server_method", Method.self), let contextNew = f("SSL_CTX_new", ContextNew.self),
              let contextFree = f("SSL_CTX_free", Free.self),
              let chain = f("SSL_CTX_use_certificate_chain_file", UseChainFile.self),
              let key = f("SSL_CTX_use_PrivateKey_file", UseFile.self), let sessionNew = f("SSL_new", SessionNew.self),
              let sessionFree = f("SSL_free", Free.self), let setFD = f("SSL_set_fd", SetFD.self),
              let accept = f("SSL_accept", Step.self), let read = f("SSL_read", ReadWrite.self),
              let write = f("SSL_write", ReadWrite.self), let pending = f("SSL_pending", Step.self),
              let getError = f("SSL_get_error", GetError.self), let shutdown = f("SSL_shutdown", Step.self)
        else { return nil }
        return TLSServerLibrary(
            serverMethod: serverMethod, contextNew: contextNew, contextFree: contextFree, useCertificateChainFile: chain,
            usePrivateKeyFile: key, sessionNew: sessionNew, sessionFree: sessionFree, setFD: setFD, accept: accept, read: read,
            write: write, pending: pending, getError: getError, shutdown: shutdown)
    }
}
