import Testing
@testable import ChappieCore

/// Feeds `bytes` whole, one byte at a time and split at every index, and checks each way gives the same events.
private func parseEveryWay(_ bytes: [UInt8]) throws -> [SSEEvent] {
    var whole = SSEParser()
    let expected = try whole.feed(bytes) + whole.finish()
    var single = SSEParser()
    var singleEvents: [SSEEvent] = []
    for byte in bytes { singleEvents += try single.feed([byte]) }
    singleEvents += try single.finish()
    #expect(singleEvents == expected, "one byte per chunk differs")
    for split in 0...bytes.count {
        var parser = SSEParser()
        let events = try parser.feed(bytes[..<split]) + parser.feed(bytes[split...]) + parser.finish()
        #expect(events == expected, "split at \(split) differs")
    }
    return expected
}

private func event(_ data: String, type: String = "message", id: String? = nil, retry: Int? = nil) -> SSEEvent {
    SSEEvent(type: type, data: data, id: id, retry: retry)
}

@Suite("SSE parser")
struct SSEParserTests {
    @Test("LF, CRLF and bare CR line endings give the same events", arguments: ["\n", "\r\n", "\r"])
    func lineEndings(_ newline: String) throws {
        let text = "event: a\(newline)data: one\(newline)\(newline)data: two\(newline)\(newline)"
        let events = try parseEveryWay(Array(text.utf8))
        #expect(events == [event("one", type: "a"), event("two")])
    }

    @Test("mixed line endings in one stream are each honoured")
    func mixedLineEndings() throws {
        let events = try parseEveryWay(Array("data: a\r\n\rdata: b\n\r\ndata: c\r\r".utf8))
        #expect(events == [event("a"), event("b"), event("c")])
    }

    @Test("multi-line data joins with LF and data without a space keeps its text")
    func multiLineData() throws {
        let events = try parseEveryWay(Array("data:first\ndata: second\ndata:  third\n\n".utf8))
        #expect(events == [event("first\nsecond\n third")])
    }

    @Test("comments and keep-alives make no event but are counted")
    func comments() throws {
        var parser = SSEParser()
        let events = try parser.feed(Array(": keep-alive\n\n:\n\ndata: x\n\n".utf8))
        #expect(events == [event("x")])
        #expect(parser.commentCount == 2)
    }

    @Test("a last event with no blank line is dispatched at the end")
    func lastEventWithoutBlankLine() throws {
        let events = try parseEveryWay(Array("data: a\n\ndata: tail".utf8))
        #expect(events == [event("a"), event("tail")])
    }

    @Test("a leading byte-order mark is dropped")
    func byteOrderMark() throws {
        let events = try parseEveryWay([0xEF, 0xBB, 0xBF] + Array("event: x\ndata: y\n\n".utf8))
        #expect(events == [event("y", type: "x")])
    }

    @Test("a multi-byte character split across chunks survives intact")
    func utf8Split() throws {
        let events = try parseEveryWay(Array("data: héllo … 🌍 done\n\n".utf8))
        #expect(events == [event("héllo … 🌍 done")])
    }

    @Test("empty data dispatches an empty event; an event with no data does not dispatch")
    func emptyData() throws {
        let events = try parseEveryWay(Array("data:\n\nevent: lonely\n\ndata: [DONE]\n\n".utf8))
        #expect(events == [event(""), event("[DONE]")])
    }

    @Test("id persists across events and retry must be digits")
    func idAndRetry() throws {
        let events = try parseEveryWay(Array("id: 7\nretry: 1500\ndata: a\n\nretry: 15x\ndata: b\n\n".utf8))
        #expect(events == [event("a", id: "7", retry: 1500), event("b", id: "7")])
    }

    @Test("unknown fields and bare field names are ignored")
    func unknownFields() throws {
        let events = try parseEveryWay(Array("foo: bar\ndata\nbaz\ndata: z\n\n".utf8))
        #expect(events == [event("\nz")])
    }

    @Test("a line past the cap fails instead of growing without bound")
    func lineCap() throws {
        var parser = SSEParser(maximumLineBytes: 16, maximumEventBytes: 64)
        #expect(throws: SSEParser.Failure.tooLarge(16)) { try parser.feed(Array(String(repeating: "x", count: 40).utf8)) }
    }

    @Test("a large event in many chunks parses in linear time")
    func largeEvent() throws {
        let payload = String(repeating: "a", count: 2 << 20)
        let bytes = Array("data: \(payload)\n\n".utf8)
        var parser = SSEParser()
        var events: [SSEEvent] = []
        var index = 0
        while index < bytes.count {
            events += try parser.feed(bytes[index..<min(index + 8192, bytes.count)])
            index += 8192
        }
        #expect(events.count == 1)
        #expect(events.first?.data.count == payload.count)
    }
}
