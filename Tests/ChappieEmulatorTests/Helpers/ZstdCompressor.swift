import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Compresses with the system libzstd (loaded with `dlopen`), to build the request bodies Codex
/// sends with `Content-Encoding: zstd` (PROTOCOL §4.2).
func zstdCompress(_ data: Data, level: Int32 = 3) throws -> Data {
    typealias Bound = @convention(c) (Int) -> Int
    typealias Compress = @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeRawPointer?, Int, Int32) -> Int
    guard let handle = dlopen("libzstd.so.1", RTLD_NOW), let boundSymbol = dlsym(handle, "ZSTD_compressBound"),
        let compressSymbol = dlsym(handle, "ZSTD_compress")
    else { throw POSIXError(.ENOENT) }
    let bound = unsafeBitCast(boundSymbol, to: Bound.self)
    let compress = unsafeBitCast(compressSymbol, to: Compress.self)
    var output = [UInt8](repeating: 0, count: bound(data.count))
    let source = [UInt8](data)
    let written = output.withUnsafeMutableBytes { out in
        source.withUnsafeBytes { input in compress(out.baseAddress, out.count, input.baseAddress, input.count, level) }
    }
    guard written > 0, written <= output.count else { throw POSIXError(.EIO) }
    return Data(output[0..<written])
}
