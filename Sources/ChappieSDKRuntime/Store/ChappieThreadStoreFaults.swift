#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Test seam of ``ChappieFileThreadStore``: makes file writes fail the way a full disk or a
/// failing device would, so tests can check that a failed save leaves what is stored intact
/// without filling a disk. Not for apps.
@_spi(ChappieTesting)
public struct ChappieThreadStoreFaults: Sendable {
    /// How one write fails: `bytesWritten` bytes reach the file first, then the write fails with
    /// the system error `errorNumber` (for example `ENOSPC`).
    public struct WriteFailure: Sendable, Equatable {
        /// The `errno` the write fails with.
        public var errorNumber: Int32
        /// Bytes written before the failure (a torn write); 0 for none.
        public var bytesWritten: Int

        /// Creates a failure of `errorNumber` after `bytesWritten` bytes.
        public init(errorNumber: Int32, bytesWritten: Int = 0) {
            self.errorNumber = errorNumber
            self.bytesWritten = max(0, bytesWritten)
        }
    }

    /// Called before each write with the name of the file written (`<uuid>.json`, `<uuid>.journal`,
    /// `index.json`); a failure makes that write fail, nil lets it happen.
    public let writeFailure: @Sendable (_ fileName: String) -> WriteFailure?

    /// Creates a seam that decides each write with `writeFailure`.
    public init(writeFailure: @escaping @Sendable (_ fileName: String) -> WriteFailure?) {
        self.writeFailure = writeFailure
    }

    /// Every write of a thread's snapshot or journal fails with `errorNumber` after
    /// `bytesWritten` bytes (the index is written normally).
    public static func failingThreadWrites(errorNumber: Int32, bytesWritten: Int = 0) -> ChappieThreadStoreFaults {
        ChappieThreadStoreFaults { name in
            name.hasSuffix(".json") && name != "index.json" || name.hasSuffix(".journal")
                ? WriteFailure(errorNumber: errorNumber, bytesWritten: bytesWritten) : nil
        }
    }
}
