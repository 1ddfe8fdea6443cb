/// Makes untrusted text (model output, tool output, stored titles, strings from the sign-in
/// server, error messages) safe to print on a terminal: printable text, newlines and tabs pass;
/// everything that could drive the terminal is dropped.
///
/// Dropped: C0 controls other than `\n` and `\t` (so `\r`, backspace and BEL too), DEL, C1
/// controls (U+0080–U+009F), escape sequences whole — `ESC` with its intermediates and final
/// byte, CSI (`ESC [` or U+009B) with its parameters, and OSC, DCS, SOS, PM and APC strings (`ESC ]`,
/// `ESC P`, `ESC X`, `ESC ^`, `ESC _` or their C1 forms) with their payload up to BEL or ST — and
/// the bidirectional embeddings, overrides, isolates and marks (U+202A–U+202E, U+2066–U+2069,
/// U+200E, U+200F, U+061C) that can make text read differently from what it is, and the line and
/// paragraph separators (U+2028, U+2029). Sequence grammar after ECMA-48 §5.
///
/// It is a small state machine fed piece by piece (``feed(_:)``), so a sequence split across two
/// stream deltas is still removed whole, and each call costs time linear in its own input: a
/// reply is never re-scanned.
struct TerminalSanitizer {
    /// Where the machine stands between two pieces of input.
    private enum State {
        /// Plain text.
        case text
        /// After `ESC`.
        case escape
        /// After `ESC` and one or more intermediate bytes (0x20–0x2F).
        case escapeIntermediate
        /// Inside a control sequence (CSI), before its final byte.
        case controlSequence
        /// Inside a control string (OSC, DCS, SOS, PM, APC), before its terminator.
        case controlString
        /// After `ESC` inside a control string: `\` ends the string (ST).
        case controlStringEscape
    }

    /// Longest control sequence or control string swallowed, in scalars. Past it the machine
    /// gives up on the sequence (what follows prints as text; the sequence's start is gone, so
    /// it can no longer act), so a stray opener cannot hide the rest of a reply.
    static let maximumSequenceScalars = 4096

    private var state = State.text
    private var swallowed = 0

    /// The printable part of `piece`, given everything fed before. Linear in `piece`.
    mutating func feed(_ piece: String) -> String {
        if state == .text && !piece.unicodeScalars.contains(where: Self.needsAttention) { return piece }
        var output = String.UnicodeScalarView()
        for scalar in piece.unicodeScalars { consume(scalar, into: &output) }
        return String(output)
    }

    /// Ends the input: an unfinished sequence is dropped. Nothing is ever held back, so there is
    /// nothing left to print.
    mutating func finish() {
        state = .text
        swallowed = 0
    }

    /// `text` made safe in one go.
    static func clean(_ text: String) -> String {
        var sanitizer = TerminalSanitizer()
        return sanitizer.feed(text)
    }

    /// ``clean(_:)`` for one line: newlines and tabs become spaces.
    static func cleanLine(_ text: String) -> String {
        let clean = clean(text)
        guard clean.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\t" }) else { return clean }
        return String(String.UnicodeScalarView(clean.unicodeScalars.map { $0 == "\n" || $0 == "\t" ? " " : $0 }))
    }

    private mutating func consume(_ scalar: Unicode.Scalar, into output: inout String.UnicodeScalarView) {
        let value = scalar.value
        switch state {
        case .text:
            switch value {
            case 0x1B: enter(.escape)
            case 0x9B: enter(.controlSequence)
            case 0x90, 0x98, 0x9D, 0x9E, 0x9F: enter(.controlString)
            case 0x0A, 0x09: output.append(scalar)
            case _ where Self.isDropped(value): break
            default: output.append(scalar)
            }
        case .escape:
            switch value {
            case 0x5B: enter(.controlSequence)  // [
            case 0x5D, 0x50, 0x58, 0x5E, 0x5F: enter(.controlString)  // ] P X ^ _
            case 0x1B: break
            case 0x20...0x2F: state = .escapeIntermediate
            case 0x30...0x7E: state = .text
            default:
                state = .text
                consume(scalar, into: &output)
            }
        case .escapeIntermediate:
            switch value {
            case 0x20...0x2F: break
            case 0x30...0x7E: state = .text
            default:
                state = .text
                consume(scalar, into: &output)
            }
        case .controlSequence:
            switch value {
            case 0x20...0x3F where swallowed < Self.maximumSequenceScalars: swallowed += 1
            case 0x40...0x7E: state = .text
            default:
                state = .text
                consume(scalar, into: &output)
            }
        case .controlString:
            switch value {
            case 0x07, 0x9C: state = .text
            case 0x1B: state = .controlStringEscape
            case _ where swallowed < Self.maximumSequenceScalars: swallowed += 1
            default:
                state = .text
                consume(scalar, into: &output)
            }
        case .controlStringEscape:
            if value == 0x5C {  // ESC \ is ST
                state = .text
            } else {
                // Any other escape ends the string and starts a sequence of its own.
                state = .escape
                consume(scalar, into: &output)
            }
        }
    }

    /// `json` (JSON text) with every scalar this sanitizer would drop, other than the C0 controls
    /// JSON already escapes, written as a `\uXXXX` escape. Such scalars can only stand inside
    /// JSON strings, where the escape means the same character. Linear in `json`.
    static func escapingForJSON(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: { $0.value >= 0x7F && isDropped($0.value) }) else { return json }
        var escaped = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if scalar.value >= 0x7F, isDropped(scalar.value) {
                let hex = String(scalar.value, radix: 16)
                escaped.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    private mutating func enter(_ next: State) {
        state = next
        swallowed = 0
    }

    /// Controls, DEL, C1, the bidirectional formatting characters (embeddings, overrides,
    /// isolates, the left-to-right, right-to-left and Arabic letter marks) and the line and
    /// paragraph separators, which terminals treat inconsistently (newline and tab are kept).
    private static func isDropped(_ value: UInt32) -> Bool {
        value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
            || value == 0x061C || value == 0x200E || value == 0x200F || value == 0x2028 || value == 0x2029
    }

    /// True for a scalar the plain-text fast path cannot pass through unchanged.
    private static func needsAttention(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "\n" && scalar != "\t" && isDropped(scalar.value)
    }
}
