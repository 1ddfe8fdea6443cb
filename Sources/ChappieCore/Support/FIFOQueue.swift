/// A first-in, first-out queue on an array with a moving head: appending and taking cost O(1)
/// amortized, and the slots before the head are released once they are at least half the array
/// and 64 or more, so a queue that a producer keeps topped up while its consumer reads never
/// keeps what was already taken. The buffers between the network and a consumer (response
/// bodies, WebSocket inboxes, event channels) are built on it.
struct FIFOQueue<Element> {
    private var storage: [Element] = []
    private var head = 0

    /// An empty queue.
    init() {}

    /// The number of elements waiting.
    var count: Int { storage.count - head }

    /// Slots the array holds: the waiting elements plus taken ones not yet released (tests check
    /// that it stays within twice ``count`` plus 64).
    var storedCount: Int { storage.count }

    /// True when no element waits.
    var isEmpty: Bool { head == storage.count }

    /// Adds `element` at the back.
    mutating func append(_ element: Element) { storage.append(element) }

    /// Takes the front element; nil when the queue is empty.
    mutating func popFirst() -> Element? {
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
    mutating func removeAll() {
        storage.removeAll()
        head = 0
    }
}

extension FIFOQueue: Sendable where Element: Sendable {}
