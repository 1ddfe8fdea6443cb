import ChappieTransport
import Foundation

/// Closes a WebSocket that stays silent too long: the stream idle timeout (PROTOCOL §6.2: the same
/// 300 s as over HTTP) for a socket, which has no timeout of its own between messages. Each message
/// calls ``touch()``; after `timeout` seconds without one, `onIdle` runs once (it closes the
/// connection, which ends the pending receive) and ``fired`` turns true.
final class IdleWatchdog: Sendable {
    private struct State {
        var lastActivity = DispatchTime.now().uptimeNanoseconds
        var fired = false
    }

    private let state = LockedBox(State())
    private let task = LockedBox<Task<Void, Never>?>(nil)

    /// Starts watching; `timeout` in seconds.
    init(timeout: TimeInterval, onIdle: @escaping @Sendable () -> Void) {
        let nanoseconds = UInt64(max(0.001, timeout) * 1e9)
        let watch = Task { [state] in
            var wait = nanoseconds
            while (try? await Task.sleep(nanoseconds: wait)) != nil {
                let idle = state.withLock { state -> UInt64? in
                    let elapsed = DispatchTime.now().uptimeNanoseconds - state.lastActivity
                    if elapsed >= nanoseconds {
                        state.fired = true
                        return nil
                    }
                    return nanoseconds - elapsed
                }
                guard let remaining = idle else {
                    onIdle()
                    return
                }
                wait = remaining
            }
        }
        task.withLock { $0 = watch }
    }

    /// Notes activity now.
    func touch() { state.withLock { $0.lastActivity = DispatchTime.now().uptimeNanoseconds } }

    /// Whether the timeout was reached.
    var fired: Bool { state.withLock { $0.fired } }

    /// Stops watching.
    func stop() { task.withLock { $0?.cancel() } }

    deinit { task.withLock { $0?.cancel() } }
}
