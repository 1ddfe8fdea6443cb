import ChappieTransport
import Foundation

/// Compresses HTTP request bodies with zstd (RFC 8878) for `Content-Encoding: zstd`, as Codex does
/// for the `/responses` body when signed in with ChatGPT (PROTOCOL §4.2: level 3).
///
/// On Linux the system `libzstd.so.1` (Debian package `libzstd1`) is loaded at run time, so the
/// package links nothing outside the toolchain; where the library is missing, and always on Apple
/// platforms (which ship no zstd), ``compress(_:)`` returns nil and the body goes uncompressed.
enum ZstdCompression {
    /// The header that announces a compressed body (RFC 9110 §8.4).
    static let contentEncoding = HTTPField(name: Wire.contentEncodingHeader, value: Wire.zstd)

    /// The compression level Codex uses (PROTOCOL §4.2).
    static let defaultLevel: Int32 = 3

    /// Whether bodies can be compressed here: libzstd loaded (never on Apple platforms).
    static var isAvailable: Bool {
        #if os(Linux)
        (try? ZstdLibrary.shared.get()) != nil
        #else
        false
        #endif
    }

    /// `body` as one zstd frame at `level`, or nil when zstd is unavailable here or compression
    /// failed (send the body uncompressed then). The frame records the content size, so the
    /// server can check it. CPU-bound: about 1-3 ms per 100 KB at level 3.
    static func compress(_ body: Data, level: Int32 = defaultLevel) -> Data? {
        #if os(Linux)
        compress(body, level: level, library: ZstdLibrary.shared)
        #else
        return nil
        #endif
    }

    #if os(Linux)
    /// `body` compressed with `library` (tests pass a missing one), or nil when it did not load
    /// or compression failed.
    static func compress(_ body: Data, level: Int32, library: Result<ZstdLibrary, SystemLibrary.LoadError>) -> Data? {
        guard case .success(let library) = library else { return nil }
        let capacity = library.compressBound(body.count)
        guard library.isError(capacity) == 0, capacity > 0 else { return nil }
        var output = Data(count: capacity)
        let written = output.withUnsafeMutableBytes { destination in
            body.withUnsafeBytes { source in
                library.compress(destination.baseAddress, destination.count, source.baseAddress, source.count, level)
            }
        }
        guard library.isError(written) == 0, written <= capacity else { return nil }
        output.count = written
        return output
    }
    #endif

    private enum Wire {
        static let contentEncodingHeader = "Content-Encoding"
        static let zstd = "zstd"
    }
}
