import ChappieSDK
import Foundation

/// A log sink that keeps every event in memory, for assertions in tests.
///
/// Thread-safe: events live behind one `NSLock`, which makes the `@unchecked Sendable` sound.
public final class ChappieInMemoryLogSink: ChappieLogSink, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [ChappieLogEvent] = []

    /// Creates an empty sink.
    public init() {}

    /// Records `event`.
    public func log(_ event: ChappieLogEvent) {
        lock.lock()
        defer { lock.unlock() }
        stored.append(event)
    }

    /// Every event so far, in order.
    public var events: [ChappieLogEvent] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    /// Every event rendered as one line of text (message and sorted metadata), for searching.
    public var renderedLines: [String] {
        events.map { event in
            ([event.message] + event.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
        }
    }
}
