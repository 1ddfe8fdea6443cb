/// A first-in, first-out queue on an array with a moving head: appending and taking cost O(1)
/// amortized, and the slots before the head are released once they are at least half the array
/// and 64 or more, so a queue that a producer keeps topped up while its consumer reads never
/// keeps what was already taken. The buffers between the network and a consumer (response
/// bodies, WebSocket inboxes, event channels) are built on it. `public` and inlinable only so that
/// the other modules' buffers get it specialized for their element type rather than as an
/// unspecialized generic call per element (this toolchain does not inline `package` declarations
/// across modules); ChappieTransport is in no product, so nothing outside the package sees it.
public struct FIFOQueue<Element> {
    @usableFromInline var storage: [Element] = []
    @usableFromInline var head = 0

    /// An empty queue.
    @inlinable public init() {}

    /// The number of elements waiting.
    @inlinable public var count: Int { storage.count - head }

    /// Slots the array holds: the waiting elements plus taken ones not yet released (tests check
    /// that it stays within twice ``count`` plus 64).
    @inlinable public var storedCount: Int { storage.count }

    /// True when no element waits.
    @inlinable public var isEmpty: Bool { head == storage.count }

    /// Adds `element` at the back.
    @inlinable public mutating func append(_ element: Element) { storage.append(element) }

    /// Takes the front element; nil when the queue is empty.
    @inlinable public mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Drops every element and the storage.
    @inlinable public mutating func removeAll() {
        storage.removeAll()
        head = 0
    }
}

extension FIFOQueue: Sendable where Element: Sendable {}
