import Foundation

/// Where the SDK gets the time and how it waits: the system clock by default, a virtual clock in
/// tests (ChappieSDKTesting provides one), so polling and back-off never sleep in a test.
public struct ChappieTimeSource: Sendable {
    /// The current wall-clock date.
    public var now: @Sendable () -> Date
    /// Waits for a duration; throws `CancellationError` when the task is cancelled.
    public var sleep: @Sendable (Duration) async throws -> Void

    /// Creates a time source from a date provider and a sleeper.
    public init(now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }

    /// The system clock and `Task.sleep`.
    public static let system = ChappieTimeSource(now: { Date() }, sleep: { try await Task.sleep(for: $0) })
}

extension Duration {
    /// A duration from a number of seconds (fractions allowed; negative values become zero).
    static func seconds(interval: TimeInterval) -> Duration {
        .milliseconds(Int64((max(0, interval) * 1000).rounded()))
    }
}
