/// Holds a tool handler (or any task) until the test releases it, so a test can act while a
/// turn is known to be running: the handler calls ``hold()``, the test awaits
/// ``waitUntilHeld()``, does what it tests, then calls ``release()``.
///
/// One holder at a time; ``hold()`` is not cancelled with its task (the test releases it).
public actor HeldHandler {
    private var held: CheckedContinuation<Void, Never>?
    private var isHeld = false
    private var holdWaiters: [CheckedContinuation<Void, Never>] = []

    /// Creates a handler that holds nothing yet.
    public init() {}

    /// Suspends the caller until ``release()``; wakes every ``waitUntilHeld()``.
    public func hold() async {
        await withCheckedContinuation { continuation in
            held = continuation
            isHeld = true
            holdWaiters.forEach { $0.resume() }
            holdWaiters.removeAll()
        }
    }

    /// Returns once a caller is (or was) in ``hold()``.
    public func waitUntilHeld() async {
        if isHeld { return }
        await withCheckedContinuation { holdWaiters.append($0) }
    }

    /// Lets the caller of ``hold()`` go on.
    public func release() {
        held?.resume()
        held = nil
    }
}
