import Foundation
@testable import ChappieCore

/// A clock whose sleeps wait until the test opens the gate, then return at once: polling waits
/// for the test's approve, deny or expire instead of spinning through virtual time.
actor SleepGate {
    private var open = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Waits until the gate opens (at once when it is open).
    func wait() async {
        if open { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Opens the gate for good.
    func release() {
        open = true
        waiters.forEach { $0.resume() }
        waiters.removeAll()
    }

    /// The time source: the system date, and sleeps that wait for the gate.
    nonisolated var timeSource: ChappieTimeSource {
        ChappieTimeSource(now: { Date() }, sleep: { _ in await self.wait() })
    }
}
