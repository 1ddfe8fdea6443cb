import ChappieSDK
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard input one line at a time, for `chat` and its approval questions.
///
/// One background thread reads lines for the whole process, so a line is never lost to a read
/// nobody waits for any more; a wait for the next line ends at once when its task is cancelled
/// (the line, when it comes, stays queued for the next reader). A line that is not UTF-8 text
/// (binary input, a NUL byte) arrives as ``Line/notText(bytes:)`` instead of being guessed at.
final class StandardInputLines: @unchecked Sendable {
    // Sound: every stored property is read and written only while holding `lock`.

    /// One line of input, without its line end (`\n` or `\r\n`).
    enum Line: Sendable, Equatable {
        /// A line of UTF-8 text.
        case text(String)
        /// A line that is not UTF-8 text; its length in bytes.
        case notText(bytes: Int)
    }

    /// The reader of this process's standard input.
    static let shared = StandardInputLines(descriptor: STDIN_FILENO)

    private let descriptor: Int32
    private let lock = NSLock()
    private var queued: [Line] = []
    private var ended = false
    private var reading = false
    private var waiters: [(id: UUID, continuation: CheckedContinuation<Line?, Never>)] = []

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The next line; nil at the end of input or when the calling task is cancelled.
    func next() async -> Line? {
        let id = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Line?, Never>) in
                lock.lock()
                if !queued.isEmpty {
                    let line = queued.removeFirst()
                    lock.unlock()
                    continuation.resume(returning: line)
                } else if ended || Task.isCancelled {
                    lock.unlock()
                    continuation.resume(returning: nil)
                } else {
                    waiters.append((id, continuation))
                    let start = !reading
                    reading = true
                    lock.unlock()
                    if start { startReading() }
                }
            }
        } onCancel: {
            lock.lock()
            let index = waiters.firstIndex { $0.id == id }
            let waiter = index.map { waiters.remove(at: $0) }
            lock.unlock()
            waiter?.continuation.resume(returning: nil)
        }
    }

    private func startReading() {
        let thread = Thread { [self] in readUntilEnd() }
        thread.name = "chappie.stdin"
        thread.start()
    }

    /// Reads `descriptor` until end of input, handing each line to the oldest waiter or the queue.
    private func readUntilEnd() {
        var pending = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            var start = pending.count
            pending.append(contentsOf: buffer[0..<count])
            var lineStart = 0
            while let newline = pending[start...].firstIndex(of: 0x0A) {
                deliver(Self.line(pending[lineStart..<newline]))
                lineStart = newline + 1
                start = lineStart
            }
            pending.removeFirst(lineStart)
        }
        if !pending.isEmpty { deliver(Self.line(pending[...])) }
        lock.lock()
        ended = true
        let waiting = waiters
        waiters.removeAll()
        lock.unlock()
        for waiter in waiting { waiter.continuation.resume(returning: nil) }
    }

    private func deliver(_ line: Line) {
        lock.lock()
        if waiters.isEmpty {
            queued.append(line)
            lock.unlock()
        } else {
            let waiter = waiters.removeFirst()
            lock.unlock()
            waiter.continuation.resume(returning: line)
        }
    }

    /// `bytes` as a line: text when it is UTF-8 without NUL bytes (a final `\r` removed).
    static func line(_ bytes: ArraySlice<UInt8>) -> Line {
        var bytes = bytes
        if bytes.last == 0x0D { bytes.removeLast() }
        guard !bytes.contains(0), let text = String(bytes: bytes, encoding: .utf8) else { return .notText(bytes: bytes.count) }
        return .text(text)
    }
}
