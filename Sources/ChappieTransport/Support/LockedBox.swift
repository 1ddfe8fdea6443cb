import Foundation

/// The SDK's one lock (ChappieTransport, ChappieCore and the runtime share it): a small box of
/// mutable state guarded by an `NSLock`.
///
/// `Synchronization.Mutex` needs iOS 18 / macOS 15, above the package's iOS 16 / macOS 13 floor,
/// so synchronous state shared with URLSession delegate callbacks lives here instead.
/// It is sound to mark it `@unchecked Sendable` because every access to `value` happens inside
/// `withLock`, which holds the lock for the whole closure, and the closure cannot leak an
/// `inout` reference. The SDK's only other `@unchecked Sendable` types are the libcurl loop and
/// transfer (`CurlHTTPTransport.swift`), whose unlocked state is touched on their loop thread only.
///
/// `public` and inlinable only so that the other modules' hot paths (event channels, response
/// bodies) get a specialized, inlined lock instead of an unspecialized generic call per access:
/// this toolchain does not inline `package` declarations across modules. ChappieTransport is in
/// no product, so nothing outside the package can see it. The two stored properties are usable
/// from inlinable code, and are still reached only through `withLock`.
public final class LockedBox<Value>: @unchecked Sendable {
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    /// A box holding `value`.
    @inlinable public init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    @inlinable public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
