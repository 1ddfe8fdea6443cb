/// Faults scripted by a test, consumed one per matching request in FIFO order (the WebSocket
/// handshake and refresh-grant faults).
actor FaultQueue<Fault: Sendable> {
    private var queue = [Fault]()

    /// Appends `fault`.
    func enqueue(_ fault: Fault) { queue.append(fault) }

    /// Removes and returns the oldest fault, or nil when none is queued.
    func next() -> Fault? { queue.isEmpty ? nil : queue.removeFirst() }

    /// Number of faults still queued.
    var count: Int { queue.count }
}
