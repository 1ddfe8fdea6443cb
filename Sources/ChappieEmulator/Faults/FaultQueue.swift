/// Replies and faults scripted by a test, consumed one per matching request in FIFO order:
/// the `/responses` replies, the WebSocket handshake faults and the refresh-grant faults.
///
/// An entry may target one account (by its `chatgpt_account_id`): a request made with that
/// account's token takes the oldest entry targeted at its account first, then the oldest
/// untargeted one. Entries targeted at another account are left for it.
actor FaultQueue<Fault: Sendable> {
    private var queue = [(accountID: String?, fault: Fault)]()

    /// Appends `fault`, for requests of `accountID` only (nil = any request).
    func enqueue(_ fault: Fault, accountID: String? = nil) { queue.append((accountID, fault)) }

    /// Removes and returns the oldest entry for a request of `accountID` (nil = unknown account:
    /// untargeted entries only), or nil when none matches.
    func next(accountID: String? = nil) -> Fault? {
        let index = accountID.flatMap { id in queue.firstIndex { $0.accountID == id } }
            ?? queue.firstIndex { $0.accountID == nil }
        guard let index else { return nil }
        return queue.remove(at: index).fault
    }

    /// Number of entries still queued, whatever their account.
    var count: Int { queue.count }
}
