import Foundation

/// A value guarded by one `NSLock`, for the small amount of synchronous state shared between the
/// socket threads (the listener's connection table and the result slot of a blocking bridge).
///
/// This is the module's only `@unchecked Sendable` type. It is sound because every read and write
/// of `value` happens inside `withLock`, which holds the lock for the whole closure.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Creates a box holding `value`.
    init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value and returns its result.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
