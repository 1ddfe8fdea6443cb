@testable import ChappieTransport
import Testing

@Suite("FIFO queue")
struct FIFOQueueTests {
    @Test("elements come out in order")
    func order() {
        var queue = FIFOQueue<Int>()
        for value in 0..<1_000 { queue.append(value) }
        var taken: [Int] = []
        while let value = queue.popFirst() { taken.append(value) }
        #expect(taken == Array(0..<1_000))
        #expect(queue.isEmpty && queue.storedCount == 0)
    }

    @Test("a queue kept topped up while it is read never keeps what was taken")
    func toppedUp() {
        // A producer that stays ~300 ahead of its consumer: the queue never empties.
        var queue = FIFOQueue<Int>()
        for value in 0..<300 { queue.append(value) }
        var next = 0
        for value in 300..<100_000 {
            queue.append(value)
            #expect(queue.popFirst() == next)
            next += 1
            if queue.storedCount > 2 * queue.count + 64 {
                Issue.record("\(queue.storedCount) slots held for \(queue.count) waiting elements")
                return
            }
        }
        #expect(queue.count == 300)
    }
}
