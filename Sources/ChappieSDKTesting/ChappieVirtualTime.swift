import ChappieSDK
import Foundation

/// A virtual clock for tests: `sleep` returns at once after moving the clock forward, so polling,
/// back-off and expiry run in no real time and deterministically.
///
/// Thread-safe: the date lives behind one `NSLock`, which makes the `@unchecked Sendable` sound
/// (every read and write of `current` holds the lock).
public final class ChappieVirtualTime: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    private var sleeps: [Duration] = []

    /// Starts the clock at `start` (default: now).
    public init(start: Date = Date()) { current = start }

    /// The virtual date.
    public var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    /// Every duration slept so far, in order.
    public var recordedSleeps: [Duration] {
        lock.lock()
        defer { lock.unlock() }
        return sleeps
    }

    /// Moves the clock forward by `interval` seconds.
    public func advance(by interval: TimeInterval) {
        lock.lock()
        current = current.addingTimeInterval(interval)
        lock.unlock()
    }

    private func record(_ duration: Duration) {
        lock.lock()
        defer { lock.unlock() }
        sleeps.append(duration)
        let components = duration.components
        current = current.addingTimeInterval(Double(components.seconds) + Double(components.attoseconds) / 1e18)
    }

    /// A time source whose sleeps advance this clock and return at once (after a yield).
    /// Sleeping throws `CancellationError` when the task is cancelled.
    public var timeSource: ChappieTimeSource {
        ChappieTimeSource(now: { [self] in now }, sleep: { [self] duration in
            try Task.checkCancellation()
            record(duration)
            await Task.yield()
            try Task.checkCancellation()
        })
    }
}
