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

    /// The standard descriptors (0, 1, 2) that were closed when the process started (`chappie …
    /// >&-`), each now open on `/dev/null`, so no file or socket opened later takes its number and
    /// receives what was meant for standard output or error (or is read as input). Evaluated
    /// first thing in `main`, before anything opens a descriptor; ``Terminal`` refuses to write to
    /// a standard output that was closed.
    static let closedStandardDescriptors: Set<Int32> = {
        var closed: Set<Int32> = []
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            // The lowest free number is taken first, so this opens onto `descriptor` itself.
            let opened = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if opened >= 0, opened != descriptor {
                _ = dup2(opened, descriptor)
                _ = close(opened)
            }
            closed.insert(descriptor)
        }
        return closed
    }()

    /// Constants of `<linux/prctl.h>` that Glibc's module map does not import.
    private enum Linux {
        static let setDumpable: Int32 = 4
    }
}
