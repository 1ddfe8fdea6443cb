#if os(Linux)
import Foundation

/// The zlib functions `permessage-deflate` needs (raw deflate streams, RFC 1951), from the
/// system's `libz.so.1` loaded at run time (``SystemLibrary``). Signatures follow zlib 1.2's
/// `zlib.h`; `inflateInit2` and `deflateInit2` are macros over the `…_` functions, which also
/// check that ``ZStream`` has the size of the library's `z_stream`. The stream is passed as a raw
/// pointer (a Swift struct cannot appear in a C function type).
struct ZlibLibrary: Sendable {
    typealias InflateInit = @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32) -> Int32
    typealias DeflateInit = @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, Int32, Int32, Int32, UnsafePointer<CChar>?, Int32) -> Int32
    typealias Run = @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32
    typealias End = @convention(c) (UnsafeMutableRawPointer?) -> Int32
    typealias Version = @convention(c) () -> UnsafePointer<CChar>?

    /// Return codes and flush modes from `zlib.h`.
    enum Constant {
        /// `Z_OK`.
        static let ok: Int32 = 0
        /// `Z_STREAM_END`.
        static let streamEnd: Int32 = 1
        /// `Z_BUF_ERROR`: no progress was possible (not fatal).
        static let bufferError: Int32 = -5
        /// `Z_SYNC_FLUSH`.
        static let syncFlush: Int32 = 2
        /// `Z_DEFLATED`.
        static let deflated: Int32 = 8
        /// `Z_DEFAULT_STRATEGY`.
        static let defaultStrategy: Int32 = 0
    }

    let inflateInit: InflateInit
    let inflate: Run
    let inflateReset: End
    let inflateEnd: End
    let deflateInit: DeflateInit
    let deflate: Run
    let deflateReset: End
    let deflateEnd: End
    let version: Version

    /// The library as Debian, Ubuntu and Fedora name it.
    static let defaultLibraryName = "libz.so.1"

    /// The default library, loaded once per process.
    static let shared = Result { () throws(SystemLibrary.LoadError) in try load() }

    /// Loads the library and resolves every function.
    ///
    /// - Throws: ``SystemLibrary/LoadError`` naming the missing library or function.
    static func load(_ name: String = defaultLibraryName) throws(SystemLibrary.LoadError) -> ZlibLibrary {
        let handle = try SystemLibrary.open(name)
        func f<Function>(_ symbol: String, _ type: Function.Type) throws(SystemLibrary.LoadError) -> Function {
            try SystemLibrary.function(handle, symbol, library: name, as: type)
        }
        return ZlibLibrary(
            inflateInit: try f("inflateInit2_", InflateInit.self),
            inflate: try f("inflate", Run.self),
            inflateReset: try f("inflateReset", End.self),
            inflateEnd: try f("inflateEnd", End.self),
            deflateInit: try f("deflateInit2_", DeflateInit.self),
            deflate: try f("deflate", Run.self),
            deflateReset: try f("deflateReset", End.self),
            deflateEnd: try f("deflateEnd", End.self),
            version: try f("zlibVersion", Version.self)
        )
    }
}

/// zlib's `z_stream`, field for field (`uInt` is 32 bits; `uLong` and pointers are word-sized
/// on Linux). zlib's init functions compare its size with their own, so a mismatch fails cleanly
/// with `Z_VERSION_ERROR`. It must not move while a stream is open: zlib keeps a pointer to it.
struct ZStream {
    var nextIn: UnsafePointer<UInt8>?
    var availIn: UInt32 = 0
    var totalIn: UInt = 0
    var nextOut: UnsafeMutablePointer<UInt8>?
    var availOut: UInt32 = 0
    var totalOut: UInt = 0
    var message: UnsafePointer<CChar>?
    var state: OpaquePointer?
    var allocate: OpaquePointer?
    var free: OpaquePointer?
    var opaque: UnsafeMutableRawPointer?
    var dataType: Int32 = 0
    var adler: UInt = 0
    var reserved: UInt = 0
}
#endif
