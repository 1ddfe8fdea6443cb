import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decodes `Content-Encoding: zstd` request bodies (RFC 8878), which Codex sends to the built-in
/// ChatGPT provider (PROTOCOL §4.2). The system `libzstd.so.1` is loaded at run time with
/// `dlopen`, so the package links nothing outside the toolchain; without the library, zstd bodies
/// are refused with 415.
enum ZstdDecoder {
    /// Why decoding failed.
    enum Failure: Error, Sendable, Equatable {
        /// `libzstd.so.1` could not be loaded.
        case libraryUnavailable
        /// The data is not a valid zstd stream, or it inflates beyond the cap.
        case invalidData
    }

    private struct InBuffer {
        var source: UnsafeRawPointer?
        var size: Int
        var position: Int
    }

    private struct OutBuffer {
        var destination: UnsafeMutableRawPointer?
        var size: Int
        var position: Int
    }

    private typealias Create = @Sendable @convention(c) () -> OpaquePointer?
    private typealias Free = @Sendable @convention(c) (OpaquePointer?) -> Int
    private typealias Decompress = @Sendable @convention(c) (OpaquePointer?, UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Int
    private typealias IsError = @Sendable @convention(c) (Int) -> UInt32

    private struct Library: Sendable {
        var create: Create
        var free: Free
        var decompress: Decompress
        var isError: IsError
    }

    private static let library: Library? = {
        guard let handle = dlopen(Wire.libraryName, RTLD_NOW | RTLD_LOCAL),
            let create = dlsym(handle, Wire.createSymbol), let free = dlsym(handle, Wire.freeSymbol),
            let decompress = dlsym(handle, Wire.decompressSymbol), let isError = dlsym(handle, Wire.isErrorSymbol)
        else { return nil }
        return Library(
            create: unsafeBitCast(create, to: Create.self),
            free: unsafeBitCast(free, to: Free.self),
            decompress: unsafeBitCast(decompress, to: Decompress.self),
            isError: unsafeBitCast(isError, to: IsError.self)
        )
    }()

    /// Inflates `data`; the result may not exceed `maximumBytes`.
    static func decode(_ data: Data, maximumBytes: Int) -> Result<Data, Failure> {
        guard let library else { return .failure(.libraryUnavailable) }
        guard let stream = library.create() else { return .failure(.libraryUnavailable) }
        defer { _ = library.free(stream) }
        var output = Data()
        var scratch = [UInt8](repeating: 0, count: 131_072)
        let source = [UInt8](data)
        return source.withUnsafeBytes { sourceBytes -> Result<Data, Failure> in
            var input = InBuffer(source: sourceBytes.baseAddress, size: sourceBytes.count, position: 0)
            var lastResult = 1
            while true {
                let produced = scratch.withUnsafeMutableBytes { scratchBytes -> Int? in
                    var out = OutBuffer(destination: scratchBytes.baseAddress, size: scratchBytes.count, position: 0)
                    let result = withUnsafeMutableBytes(of: &out) { outPointer in
                        withUnsafeMutableBytes(of: &input) { inPointer in
                            library.decompress(stream, outPointer.baseAddress!, inPointer.baseAddress!)
                        }
                    }
                    if library.isError(result) != 0 { return nil }
                    lastResult = result
                    return out.position
                }
                guard let produced else { return .failure(.invalidData) }
                output.append(contentsOf: scratch[0..<produced])
                if output.count > maximumBytes { return .failure(.invalidData) }
                if input.position >= input.size && produced < scratch.count {
                    return lastResult == 0 ? .success(output) : .failure(.invalidData)
                }
                if produced == 0 && input.position >= input.size { return .failure(.invalidData) }
            }
        }
    }

    private enum Wire {
        static let libraryName = "libzstd.so.1"
        static let createSymbol = "ZSTD_createDStream"
        static let freeSymbol = "ZSTD_freeDStream"
        static let decompressSymbol = "ZSTD_decompressStream"
        static let isErrorSymbol = "ZSTD_isError"
    }
}
