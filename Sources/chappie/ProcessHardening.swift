import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps the tokens the CLI holds in memory out of core dumps.
///
/// A crash of `chappie` would otherwise write its memory, access and refresh tokens included, to
/// a core file (or hand it to a crash collector). At start the CLI sets its core-file size limit
/// to zero (soft and hard, so nothing it runs can raise it) and, on Linux, marks itself
/// non-dumpable (`PR_SET_DUMPABLE` 0): no core even through a piped `core_pattern`, which ignores
/// the size limit, and no debugger attach or `/proc/<pid>/mem` read by other processes of the same
/// user. An app using the SDK decides this for its own process (see README's Security section).
enum ProcessHardening {
    /// Applies both settings; best effort, as a failure must not stop the command.
    static func disableCoreDumps() {
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        #if canImport(Glibc)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &none)
        // `prctl` is variadic in C, which Swift cannot call; its integer arguments pass the same way
        // through this fixed signature on the Linux ABIs Swift supports.
        if let symbol = dlsym(dlopen(nil, RTLD_NOW), "prctl") {
            let prctl = unsafeBitCast(symbol, to: (@convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32).self)
            _ = prctl(Linux.setDumpable, 0, 0, 0, 0)
        }
        #else
        _ = setrlimit(RLIMIT_CORE, &none)
        #endif
    }

    /// Constants of `<linux/prctl.h>` that Glibc's module map does not import.
    private enum Linux {
        static let setDumpable: Int32 = 4
    }
}
