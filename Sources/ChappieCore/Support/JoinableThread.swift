#if os(Linux)
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A thread of the SDK's own (the libcurl loop, a WebSocket's I/O thread) that can be waited
/// for: ``join()`` returns once the thread has ended and the system has reaped it, so after a
/// client's ``ChappieClient/shutdown()`` none of its threads is left, not even one that is just
/// returning. A thread nobody joins is detached when its last reference goes.
///
/// A thread started while a task runs with ``ThreadGroup/current`` set belongs to that group,
/// which can wait for all of them (``ThreadGroup/join()``).
final class JoinableThread: Sendable {
    private struct State {
        var handle: pthread_t?
        var ended = false
        /// The kernel's id of the thread (for tests that look it up in `/proc/self/task`).
        var threadID: Int32?
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// What the new thread runs, handed to it through `pthread_create`'s argument.
    private final class Start {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    private let state = LockedBox(State())

    /// Starts a thread named `name` that runs `body`; nil when the system cannot start one.
    init?(name: String, body: @escaping @Sendable () -> Void) {
        let state = self.state
        let start = Start {
            Thread.current.name = name
            let threadID = Self.currentThreadID()
            state.withLock { $0.threadID = threadID }
            body()
            let waiters = state.withLock { state in
                state.ended = true
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        let context = Unmanaged.passRetained(start).toOpaque()
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Start>.fromOpaque(raw).takeRetainedValue().body()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Start>.fromOpaque(context).release()
            return nil
        }
        state.withLock { $0.handle = handle }
        ThreadGroup.current.get()?.adopt(self)
    }

    /// The calling thread's kernel id, from `/proc/thread-self` (`PID/task/TID`).
    private static func currentThreadID() -> Int32? {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let link = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return link.split(separator: "/").last.flatMap { Int32($0) }
    }

    /// Whether the thread's body has returned.
    var hasEnded: Bool { state.withLock(\.ended) }

    /// The thread's kernel id once it runs.
    var threadID: Int32? { state.withLock(\.threadID) }

    /// Waits until the thread has ended, then reaps it (`pthread_join`, which by then waits only
    /// for the thread's last instructions). Never blocks while the thread still works.
    func join() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = state.withLock { state in
                if !state.ended { state.waiters.append(continuation) }
                return state.ended
            }
            if ended { continuation.resume() }
        }
        reap(wait: true)
    }

    /// Reaps an ended thread at once; false when it still runs (`wait` false) or was reaped.
    @discardableResult
    func reap(wait: Bool) -> Bool {
        let handle: pthread_t? = state.withLock { state in
            guard state.ended || wait, let handle = state.handle else { return nil }
            state.handle = nil
            return handle
        }
        guard let handle else { return false }
        _ = pthread_join(handle, nil)
        return true
    }

    deinit {
        if let handle = state.withLock({ $0.handle }) { pthread_detach(handle) }
    }
}

/// The threads a client started (its WebSocket connections' I/O threads): ``join()`` waits for
/// every one of them. Threads register themselves when started in a task that runs with
/// ``current`` set; ended ones are reaped as new ones start, so the group stays small.
final class ThreadGroup: Sendable {
    /// The group new threads join.
    static let current = TaskLocal<ThreadGroup?>(wrappedValue: nil)

    private let threads = LockedBox<[JoinableThread]>([])

    /// An empty group.
    init() {}

    /// Adds `thread`, reaping the members that have ended.
    fileprivate func adopt(_ thread: JoinableThread) {
        let ended: [JoinableThread] = threads.withLock { threads in
            let ended = threads.filter(\.hasEnded)
            threads.removeAll { $0.hasEnded }
            threads.append(thread)
            return ended
        }
        for thread in ended { thread.reap(wait: false) }
    }

    /// The kernel ids of the members still registered (for tests).
    var threadIDs: [Int32] { threads.withLock { $0.compactMap(\.threadID) } }

    /// Waits until every member has ended and is reaped. Members end on their own once told to
    /// stop (a closed connection); this only waits.
    func join() async {
        while let thread = threads.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            await thread.join()
        }
    }
}
#else
/// The threads a client started. Apple platforms' transports run on `URLSession`, which has no
/// threads of the client's own, so there is nothing to wait for.
final class ThreadGroup: Sendable {
    /// The group new threads join.
    static let current = TaskLocal<ThreadGroup?>(wrappedValue: nil)

    /// An empty group.
    init() {}

    /// No threads (for tests).
    var threadIDs: [Int32] { [] }

    /// Returns at once.
    func join() async {}
}
#endif
