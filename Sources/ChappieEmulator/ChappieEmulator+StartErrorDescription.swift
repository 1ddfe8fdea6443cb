import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ChappieEmulator.StartError: LocalizedError {
    /// What went wrong, in words: "port 8765 is already in use", or the failed call and the
    /// system's text for its `errno`.
    public var errorDescription: String? {
        switch self {
        case .bind(let port, let code) where code == EADDRINUSE:
            "port \(port) is already in use"
        case .bind(let port, let code) where code == EACCES:
            "port \(port) needs more privileges than this process has"
        case .bind(let port, let code):
            "cannot listen on 127.0.0.1:\(port): \(String(cString: strerror(code)))"
        case .socket(let code):
            "cannot open a listening socket: \(String(cString: strerror(code)))"
        }
    }
}
