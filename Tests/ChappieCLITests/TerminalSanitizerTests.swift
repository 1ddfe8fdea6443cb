import ChappieSDK
import Foundation
@testable import chappie
import Testing

@Suite("Terminal sanitizer (issue 16 item 3, issue 18 item 10)")
struct TerminalSanitizerTests {
    /// Untrusted text and what may reach the terminal of it.
    static let cases: [(input: String, printed: String)] = [
        ("plain text, é and 🧵\nline two\tcolumn", "plain text, é and 🧵\nline two\tcolumn"),
        ("\u{1B}]0;pwned title\u{07}after an OSC title change", "after an OSC title change"),
        ("link: \u{1B}]8;;https://evil.example\u{1B}\\click\u{1B}]8;;\u{1B}\\ done", "link: click done"),
        ("\u{1B}[31mred\u{1B}[0m and \u{1B}[2J\u{1B}[H cleared", "red and  cleared"),
        ("C1 forms: \u{9B}31mred \u{9D}0;title\u{9C}end", "C1 forms: red end"),
        ("DCS \u{1B}Pq#0;2;0;0;0\u{1B}\\ and APC \u{1B}_payload\u{1B}\\ gone", "DCS  and APC  gone"),
        ("charset \u{1B}(B and keypad \u{1B}= and index \u{1B}D", "charset  and keypad  and index "),
        ("carriage\rreturn, back\u{08}space, bell\u{07}, nul\u{0}, del\u{7F}", "carriagereturn, backspace, bell, nul, del"),
        ("bidi \u{202E}evil\u{202C} and \u{2067}isolate\u{2069}", "bidi evil and isolate"),
        ("marks \u{200E}l\u{200F}r\u{061C}a and separators\u{2028}line\u{2029}para", "marks lra and separatorslinepara"),
        ("an ESC then newline \u{1B}\nkeeps the newline", "an ESC then newline \nkeeps the newline"),
        ("a CSI cut by a newline \u{1B}[12\nstill prints", "a CSI cut by a newline \nstill prints"),
    ]

    @Test("only printable text, newlines and tabs pass", arguments: cases)
    func whole(input: String, printed: String) {
        #expect(TerminalSanitizer.clean(input) == printed)
    }

    @Test("a sequence split across two deltas is removed whole, at every split point", arguments: cases)
    func splitAnywhere(input: String, printed: String) {
        let scalars = Array(input.unicodeScalars)
        for cut in 0...scalars.count {
            var sanitizer = TerminalSanitizer()
            let first = String(String.UnicodeScalarView(scalars[..<cut]))
            let second = String(String.UnicodeScalarView(scalars[cut...]))
            #expect(sanitizer.feed(first) + sanitizer.feed(second) == printed, "cut at \(cut)")
        }
        var oneByOne = TerminalSanitizer()
        #expect(scalars.map { oneByOne.feed(String($0)) }.joined() == printed, "one scalar per delta")
    }

    @Test("an opener that is never closed cannot hide the rest of a long reply")
    func boundedSequence() {
        var sanitizer = TerminalSanitizer()
        let swallowed = sanitizer.feed("\u{1B}]" + String(repeating: "x", count: TerminalSanitizer.maximumSequenceScalars))
        let after = sanitizer.feed("visible again")
        #expect(swallowed.isEmpty)
        #expect(after == "visible again")
    }

    @Test("one line: newlines and tabs become spaces")
    func oneLine() {
        #expect(TerminalSanitizer.cleanLine("title\nwith\ttabs\u{1B}[1m") == "title with tabs")
    }

    @Test("--json output escapes C1 controls, DEL and bidi formatting, and still decodes to the same text")
    func jsonEscapes() throws {
        let text = "model \u{9B}31m name \u{202E}evil\u{202C} del\u{7F} é 🧵"
        let json = ChappieJSONValue.object(["name": .string(text)]).jsonString
        let escaped = TerminalSanitizer.escapingForJSON(json)
        #expect(!escaped.unicodeScalars.contains { $0.value == 0x9B || $0.value == 0x202E || $0.value == 0x202C || $0.value == 0x7F })
        for escape in [#"\u009b"#, #"\u202e"#, #"\u202c"#, #"\u007f"#] {
            #expect(escaped.lowercased().contains(escape), "\(escaped)")
        }
        #expect(escaped.contains("é 🧵"))
        #expect(try ChappieJSONValue(jsonData: Data(escaped.utf8))["name"]?.stringValue == text)
        #expect(TerminalSanitizer.escapingForJSON(#"{"plain":"text"}"#) == #"{"plain":"text"}"#)
    }
}
