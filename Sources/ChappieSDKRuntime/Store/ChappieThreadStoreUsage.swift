/// How much space a thread store uses against its cap.
public struct ChappieThreadStoreUsage: Sendable, Hashable, Codable {
    /// Bytes the stored threads take (thread files only; the index and set-aside files excluded).
    public var bytesUsed: Int
    /// The cap, in bytes; nil when there is none.
    public var byteCap: Int?
    /// Threads stored, archived ones included.
    public var threadCount: Int

    /// Creates a usage value.
    public init(bytesUsed: Int, byteCap: Int?, threadCount: Int) {
        self.bytesUsed = bytesUsed
        self.byteCap = byteCap
        self.threadCount = threadCount
    }

    /// Bytes left under the cap (never negative); nil without a cap.
    public var bytesRemaining: Int? { byteCap.map { max(0, $0 - bytesUsed) } }
    /// Share of the cap in use, 0–100; nil without a cap.
    public var usedPercent: Double? {
        byteCap.map { $0 > 0 ? Double(bytesUsed) / Double($0) * 100 : 100 }
    }
}
