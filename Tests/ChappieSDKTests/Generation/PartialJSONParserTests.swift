import Foundation
import Testing
@testable import ChappieCore

@Suite("Partial JSON parser")
struct PartialJSONParserTests {
    private static let document = #"{"title":"Crème brûlée \"classic\" \ud83c\udf6e","n":-12.5e1,"ok":true,"none":null,"list":[1,[2,{"k":"v"}],"x"],"e":{}}"#

    @Test("fed whole, one byte at a time or split at every index, the final value is the document's")
    func finalValueAtEverySplit() throws {
        let expected = try ChappieJSONValue(jsonData: Data(Self.document.utf8))
        let characters = Array(Self.document)
        for split in 0...characters.count {
            var parser = PartialJSONParser()
            parser.feed(String(characters[..<split]))
            parser.feed(String(characters[split...]))
            #expect(parser.status == .complete)
            #expect(parser.snapshot().json == expected, "split at \(split)")
        }
        var bytewise = PartialJSONParser()
        for character in characters { bytewise.feed(String(character)) }
        #expect(bytewise.snapshot().json == expected)
        #expect(bytewise.bytesRead == Self.document.utf8.count)
    }

    @Test("a snapshot completes the prefix: open strings end, containers close, half members are left out")
    func prefixes() {
        let cases: [(String, ChappieJSONValue?)] = [
            ("", nil),
            ("{", [:]),
            (#"{"ti"#, [:]),
            (#"{"title""#, [:]),
            (#"{"title":"#, [:]),
            (#"{"title":"Cr"#, ["title": "Cr"]),
            (#"{"title":"Crème","list":[1,2"#, ["title": "Crème", "list": [1, 2]]),
            (#"{"list":[{"a":tr"#, ["list": [[:]]]),
            (#"{"s":"a\"#, ["s": "a"]),
            (#"{"s":"a\u00"#, ["s": "a"]),
            (#"{"n":-"#, [:]),
            (#"["x","#, ["x"]),
        ]
        for (prefix, expected) in cases {
            var parser = PartialJSONParser()
            parser.feed(prefix)
            #expect(parser.status == .incomplete, "\(prefix)")
            #expect(parser.snapshot().json == expected, "\(prefix)")
        }
    }

    @Test("text that is not JSON is invalid, with the offset")
    func invalid() {
        for text in ["{]", #"{"a" 1}"#, "[1,,2]", "nul!", #"{"a":1}x"#, "[\"\u{01}\"]"] {
            var parser = PartialJSONParser()
            parser.feed(text)
            guard case .invalid = parser.status else {
                Issue.record("\(text) was accepted")
                continue
            }
        }
    }

    @Test("a 1 MB reply in small deltas reads each byte once and snapshots share the prefix")
    func linear() {
        // given: one long string member and a long array, 1 MB in all, in 16-byte deltas
        let body = String(repeating: "abcdefghij", count: 60_000)
        let items = (0..<80_000).map { "\($0)" }.joined(separator: ",")
        let document = #"{"text":""# + body + #"","items":["# + items + "]}"
        let utf8 = Array(document.utf8)
        var parser = PartialJSONParser()
        var snapshots = 0
        // when
        var start = 0
        while start < utf8.count {
            let end = min(start + 16, utf8.count)
            parser.feed(String(decoding: utf8[start..<end], as: UTF8.self))
            _ = parser.snapshot()
            snapshots += 1
            start = end
        }
        // then: the parser read every byte exactly once (no re-parse of the prefix per delta)
        #expect(utf8.count > 1_000_000)
        #expect(parser.bytesRead == utf8.count)
        #expect(snapshots > 60_000)
        #expect(parser.snapshot().json?["items"]?.arrayValue?.count == 80_000)
        #expect(parser.snapshot().json?["text"]?.stringValue?.utf8.count == body.utf8.count)
    }
}
