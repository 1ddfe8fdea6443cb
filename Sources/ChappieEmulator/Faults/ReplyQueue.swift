/// Replies scripted by a test, consumed one per `/responses` call in FIFO order.
actor ReplyQueue {
    private var queue = [ChappieEmulator.ScriptedReply]()

    /// Appends `reply`.
    func enqueue(_ reply: ChappieEmulator.ScriptedReply) { queue.append(reply) }

    /// Removes and returns the oldest reply, or nil when none is queued.
    func next() -> ChappieEmulator.ScriptedReply? { queue.isEmpty ? nil : queue.removeFirst() }

    /// Number of replies still queued.
    var count: Int { queue.count }
}
