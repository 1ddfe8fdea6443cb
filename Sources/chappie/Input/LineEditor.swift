import Foundation

/// The line a person is typing at a terminal in raw mode, as `chat` edits it: the text, the cursor
/// and the history of lines entered before, fed one byte at a time.
///
/// Keys (as terminals send them, VT100 / xterm): printable text inserts at the cursor (UTF-8);
/// Left, Right, Home, End (and Ctrl-B, Ctrl-F, Ctrl-A, Ctrl-E) move; Backspace and Delete erase;
/// Ctrl-U erases to the start, Ctrl-K to the end, Ctrl-W the word before the cursor; Up and Down
/// (Ctrl-P, Ctrl-N) walk the history; Enter ends the line; Ctrl-D on an empty line ends the
/// input. Any other escape sequence (function keys, Alt-…) is read whole and ignored, so it never
/// lands in the text.
struct LineEditor {
    /// What a byte did.
    enum Outcome: Equatable {
        /// The line changed (or the cursor moved): draw it again.
        case changed
        /// A character was typed at the end of the line: show just it (as a terminal echoes).
        case appended(Character)
        /// The last character was erased with the cursor at the end: erase just it.
        case erasedLast
        /// Nothing visible happened (part of a key or of a character).
        case unchanged
        /// Enter: the finished line.
        case line(String)
        /// Ctrl-D on an empty line.
        case endOfInput
    }

    /// The text typed so far.
    private(set) var text: [Character] = []
    /// The cursor, as an index into ``text``.
    private(set) var cursor = 0
    /// Lines entered before, oldest first (consecutive duplicates kept once).
    private(set) var history: [String] = []
    /// Most lines kept in ``history``.
    static let historyLimit = 500

    /// The history entry shown, counted from the newest; nil while editing a new line.
    private var historyPosition: Int?
    /// The new line, kept while the history is shown.
    private var draft: [Character] = []
    /// Bytes of an escape sequence read so far (starting with ESC).
    private var escape: [UInt8] = []
    /// Bytes of a UTF-8 character read so far.
    private var partial: [UInt8] = []

    /// Feeds one byte of input.
    mutating func feed(_ byte: UInt8) -> Outcome {
        if !escape.isEmpty { return continueEscape(byte) }
        if !partial.isEmpty || byte >= 0x80 { return continueCharacter(byte) }
        switch byte {
        case 0x1B: escape = [byte]; return .unchanged
        case 0x0D, 0x0A: return finishLine()
        case 0x7F, 0x08: return backspace()
        case 0x01: return move(to: 0)
        case 0x05: return move(to: text.count)
        case 0x02: return move(to: cursor - 1)
        case 0x06: return move(to: cursor + 1)
        case 0x15: text.removeSubrange(0..<cursor); cursor = 0; return .changed
        case 0x0B: text.removeSubrange(cursor...); return .changed
        case 0x17: return eraseWord()
        case 0x10: return showHistory(older: true)
        case 0x0E: return showHistory(older: false)
        case 0x0C: return .changed
        case 0x04: return text.isEmpty ? .endOfInput : delete()
        case 0x20...0x7E: return insert(Character(Unicode.Scalar(byte)))
        default: return .unchanged  // other control characters (Tab, Ctrl-G…) are not text
        }
    }

    /// Clears the line (Ctrl-C at the prompt) and leaves the history.
    mutating func discard() {
        text = []
        cursor = 0
        historyPosition = nil
        draft = []
        escape = []
        partial = []
    }

    /// The line drawn after `prompt` on the current terminal row: back to its start, the prompt
    /// and the text, the rest of the row erased, the cursor put back where it is in the text.
    func rendering(prompt: String) -> String {
        let back = text.count - cursor
        return "\r" + prompt + String(text) + "\u{1B}[K" + (back > 0 ? "\u{1B}[\(back)D" : "")
    }

    // MARK: Keys

    private mutating func continueEscape(_ byte: UInt8) -> Outcome {
        escape.append(byte)
        if escape.count == 2 {
            // ESC [ and ESC O start a sequence; ESC and anything else (Alt-x) is one key, ignored.
            if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "O") { return .unchanged }
            escape = []
            return .unchanged
        }
        // Parameters and intermediates until a final byte in 0x40...0x7E.
        guard (0x40...0x7E).contains(byte) else {
            if escape.count > 16 { escape = [] }
            return .unchanged
        }
        let parameter = String(decoding: escape.dropFirst(2).dropLast(), as: UTF8.self)
        escape = []
        switch (byte, parameter) {
        case (UInt8(ascii: "A"), _): return showHistory(older: true)
        case (UInt8(ascii: "B"), _): return showHistory(older: false)
        case (UInt8(ascii: "C"), _): return move(to: cursor + 1)
        case (UInt8(ascii: "D"), _): return move(to: cursor - 1)
        case (UInt8(ascii: "H"), _), (UInt8(ascii: "~"), "1"), (UInt8(ascii: "~"), "7"): return move(to: 0)
        case (UInt8(ascii: "F"), _), (UInt8(ascii: "~"), "4"), (UInt8(ascii: "~"), "8"): return move(to: text.count)
        case (UInt8(ascii: "~"), "3"): return delete()
        default: return .unchanged
        }
    }

    private mutating func continueCharacter(_ byte: UInt8) -> Outcome {
        partial.append(byte)
        let lead = partial[0]
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        guard partial.count >= length else { return .unchanged }
        defer { partial = [] }
        guard let decoded = String(bytes: partial, encoding: .utf8), let character = decoded.first else { return .unchanged }
        return insert(character)
    }

    private mutating func insert(_ character: Character) -> Outcome {
        let atEnd = cursor == text.count
        text.insert(character, at: cursor)
        cursor += 1
        return atEnd ? .appended(character) : .changed
    }

    private mutating func finishLine() -> Outcome {
        let line = String(text)
        if !line.trimmingCharacters(in: .whitespaces).isEmpty, history.last != line {
            history.append(line)
            if history.count > Self.historyLimit { history.removeFirst() }
        }
        discard()
        return .line(line)
    }

    private mutating func backspace() -> Outcome {
        guard cursor > 0 else { return .unchanged }
        let atEnd = cursor == text.count
        cursor -= 1
        text.remove(at: cursor)
        return atEnd ? .erasedLast : .changed
    }

    private mutating func delete() -> Outcome {
        guard cursor < text.count else { return .unchanged }
        text.remove(at: cursor)
        return .changed
    }

    private mutating func eraseWord() -> Outcome {
        var start = cursor
        while start > 0, text[start - 1] == " " { start -= 1 }
        while start > 0, text[start - 1] != " " { start -= 1 }
        guard start < cursor else { return .unchanged }
        text.removeSubrange(start..<cursor)
        cursor = start
        return .changed
    }

    private mutating func move(to position: Int) -> Outcome {
        let clamped = min(max(position, 0), text.count)
        guard clamped != cursor else { return .unchanged }
        cursor = clamped
        return .changed
    }

    private mutating func showHistory(older: Bool) -> Outcome {
        guard !history.isEmpty else { return .unchanged }
        let next: Int?
        switch (historyPosition, older) {
        case (nil, true): next = 0
        case (nil, false): return .unchanged
        case (let position?, true): next = min(position + 1, history.count - 1)
        case (let position?, false): next = position == 0 ? nil : position - 1
        }
        if historyPosition == nil { draft = text }
        historyPosition = next
        text = next.map { Array(history[history.count - 1 - $0]) } ?? draft
        cursor = text.count
        return .changed
    }
}
