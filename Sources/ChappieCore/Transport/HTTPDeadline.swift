import ChappieTransport
import Foundation

/// An overall deadline around an exchange that may otherwise last as long as the server keeps
/// sending a byte now and then.
enum HTTPDeadline {
    /// How a deadline waits: `Task.sleep`. A test binds a deadline it fires on cue
    /// (`HTTPDeadline.sleep.withValue`), so a request to a server that never answers meets its
    /// deadline without real time passing; the bound value reaches every request (and WebSocket
    /// send) of that task.
    /// Must throw `CancellationError` when its task is cancelled. A `TaskLocal` `let`, not a
    /// `@TaskLocal static var`, which the older Apple SDK interfaces flag as unsafe global state.
    static let sleep = TaskLocal<@Sendable (Duration) async throws -> Void>(wrappedValue: { try await Task.sleep(for: $0) })

    /// Runs `operation`; once `seconds` (nil: no deadline) have passed it is cancelled (which
    /// stops its network request) and ``TransportError/deadlineExceeded(_:)`` is thrown.
    /// Rethrows `operation`'s error; throws `CancellationError` when the caller is cancelled.
    static func run<Result: Sendable>(_ seconds: TimeInterval?, _ operation: @escaping @Sendable () async throws -> Result) async throws -> Result {
        guard let seconds else { return try await operation() }
        return try await withThrowingTaskGroup(of: Result.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await sleep.get()(.seconds(interval: seconds))
                throw TransportError.deadlineExceeded(seconds)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }
}
