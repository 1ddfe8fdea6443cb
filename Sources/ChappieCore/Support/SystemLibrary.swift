#if os(Linux)
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Opens a system shared library with `dlopen` and resolves its functions with `dlsym`, the way
/// the Secret Service store loads libsecret: the package links nothing outside the toolchain,
/// builds where a library is missing, and reports the missing piece at run time.
///
/// Handles are never closed: the resolved function pointers live for the whole process.
enum SystemLibrary {
    /// Why a library could not be used.
    struct LoadError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is missing, e.g. "libssl.so.3 could not be loaded: …".
        var description: String
    }

    /// Opens the library `name` (a soname such as `libz.so.1`).
    ///
    /// - Throws: ``LoadError`` with the loader's message.
    static func open(_ name: String) throws(LoadError) -> UnsafeMutableRawPointer {
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            throw LoadError(description: "\(name) could not be loaded (\(lastLoaderError()))")
        }
        return handle
    }

    /// The function `name` in the library `handle`, cast to the C function type `Function`.
    ///
    /// - Throws: ``LoadError`` naming the missing symbol and `library`.
    static func function<Function>(
        _ handle: UnsafeMutableRawPointer, _ name: String, library: String, as type: Function.Type
    ) throws(LoadError) -> Function {
        guard let address = dlsym(handle, name) else { throw LoadError(description: "\(library) lacks \(name)") }
        return unsafeBitCast(address, to: type)
    }

    private static func lastLoaderError() -> String {
        guard let message = dlerror() else { return "unknown error" }
        return String(cString: message)
    }
}
#endif
