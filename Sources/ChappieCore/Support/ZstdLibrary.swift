#if os(Linux)
import Foundation

/// The zstd functions request compression needs (RFC 8878 one-shot compression), from the
/// system's `libzstd.so.1` loaded at run time (``SystemLibrary``). Signatures follow zstd 1.5's
/// `zstd.h`.
struct ZstdLibrary: Sendable {
    typealias Bound = @convention(c) (Int) -> Int
    typealias Compress = @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeRawPointer?, Int, Int32) -> Int
    typealias IsError = @convention(c) (Int) -> UInt32

    let compressBound: Bound
    let compress: Compress
    let isError: IsError

    /// The library as Debian, Ubuntu and Fedora name it (package `libzstd1`).
    static let defaultLibraryName = "libzstd.so.1"

    /// The default library, loaded once per process.
    static let shared = Result { () throws(SystemLibrary.LoadError) in try load() }

    /// Loads the library and resolves every function.
    ///
    /// - Throws: ``SystemLibrary/LoadError`` naming the missing library or function.
    static func load(_ name: String = defaultLibraryName) throws(SystemLibrary.LoadError) -> ZstdLibrary {
        let handle = try SystemLibrary.open(name)
        func f<Function>(_ symbol: String, _ type: Function.Type) throws(SystemLibrary.LoadError) -> Function {
            try SystemLibrary.function(handle, symbol, library: name, as: type)
        }
        return ZstdLibrary(
            compressBound: try f("ZSTD_compressBound", Bound.self),
            compress: try f("ZSTD_compress", Compress.self),
            isError: try f("ZSTD_isError", IsError.self)
        )
    }
}
#endif
