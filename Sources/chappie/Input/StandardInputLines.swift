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
///
/// After ``startEditing()`` on a terminal, the terminal is in raw mode and lines are typed through
/// a ``LineEditor`` (arrows, history, Backspace…): the line being typed is drawn after the prompt
/// of the current ``next(prompt:)``; Ctrl-D on an empty line ends the input.
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
    /// The line being typed, while editing.
    private var editor: LineEditor?
    /// The prompt the line being typed is drawn after.
    private var prompt = ""

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Starts line editing when the input is a terminal (raw mode); false otherwise.
    func startEditing() -> Bool {
        guard RawTerminalMode.enable(descriptor) else { return false }
        lock.lock()
        if editor == nil { editor = LineEditor() }
        lock.unlock()
        return true
    }

    /// Whether lines are being edited (``startEditing()`` succeeded).
    var isEditing: Bool { lock.withLock { editor != nil } }

    /// Ends line editing and puts the terminal back as it was.
    func stopEditing() {
        lock.lock()
        editor = nil
        lock.unlock()
        RawTerminalMode.restore()
    }

    /// Drops the line being typed (Ctrl-C at the prompt).
    func discardLine() {
        lock.lock()
        editor?.discard()
        lock.unlock()
    }

    /// The next line; nil at the end of input or when the calling task is cancelled. While
    /// editing, the line being typed is drawn after `prompt` (which the caller has shown).
    func next(prompt: String = "") async -> Line? {
        // Text typed ahead (during a reply) shows once the prompt is there.
        let typedAhead = lock.withLock {
            self.prompt = prompt
            return editor.flatMap { $0.text.isEmpty ? nil : $0.rendering(prompt: prompt) }
        }
        if let typedAhead { Terminal.write(typedAhead) }
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
            if let ended = edit(buffer[0..<count]) {
                if ended { break }
                continue
            }
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

    /// Feeds `bytes` to the editor when editing: draws the line while someone waits for it, and
    /// delivers each finished line. Returns true at Ctrl-D on an empty line (the end of input),
    /// false otherwise; nil, having done nothing, when not editing.
    private func edit(_ bytes: ArraySlice<UInt8>) -> Bool? {
        lock.lock()
        guard var current = editor else {
            lock.unlock()
            return nil
        }
        // Drawn only while a prompt is showing; text typed during a reply shows with the next prompt.
        let showing = !waiters.isEmpty
        var output = ""
        var lines: [String] = []
        var ended = false
        for byte in bytes where !ended {
            switch current.feed(byte) {
            case .unchanged: break
            case .changed: output += current.rendering(prompt: prompt)
            case .appended(let character): output.append(character)
            case .erasedLast: output += "\u{8} \u{8}"
            case .line(let line):
                // Enter is not echoed in raw mode: end the row the line was typed on.
                output += "\n"
                lines.append(line)
            case .endOfInput: ended = true
            }
        }
        editor = current
        lock.unlock()
        if showing && !output.isEmpty { Terminal.write(output) }
        for line in lines { deliver(.text(line)) }
        return ended
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
