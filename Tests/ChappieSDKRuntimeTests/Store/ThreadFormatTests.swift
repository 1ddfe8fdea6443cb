@testable import ChappieSDKRuntime
import ChappieSDK
import Foundation
import Testing

/// The members of the JSON object `data` holds.
private func keys(_ data: Data) throws -> Set<String> {
    Set(try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]).keys)
}

/// The JSON object `data` holds.
private func object(_ data: Data) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

/// A turn with every member set.
private func fullTurn() -> ChappieThreadTurn {
    var turn = ThreadFixtures.everyItemKind().turns[0]
    turn.failure = ChappieThreadTurnFailure(kind: .other, message: "m")
    turn.transport = .webSocket
    turn.contextRepair = ChappieContextRepair(droppedReasoningItems: 1, droppedCompactionItems: 2)
    return turn
}

@Suite("Thread format 3: each value stored once, read back equal")
struct ThreadFormatTests {
    @Test("format 3 writes every member of a thread, its context and its turns (a new member must be added to the format)")
    func everyMemberIsWritten() throws {
        // given: a thread, a context and a turn with every member set; then: format 3 knows each member
        let thread = ThreadFixtures.everyItemKind()
        #expect(try keys(JSONEncoder().encode(thread)) == Set(ThreadFormat.Snapshot.Key.allCases.map(\.rawValue)))
        #expect(try keys(JSONEncoder().encode(thread.context)) == Set(ThreadFormat.Snapshot.ContextKey.allCases.map(\.rawValue)))
        #expect(try keys(JSONEncoder().encode(fullTurn())) == Set(ThreadFormat.Turn.Key.allCases.map(\.rawValue)))
    }

    @Test("a thread with every kind of item round-trips through a format 3 snapshot")
    func snapshotRoundTrip() throws {
        // given
        var thread = ThreadFixtures.everyItemKind()
        thread.turns.append(fullTurn())
        thread.formatVersion = 3
        thread.revision = 7
        // when
        let data = try ThreadCoding.encode(thread)
        // then
        guard case .thread(let decoded) = ThreadCoding.decode(data, expectedID: thread.id) else {
            Issue.record("not read back")
            return
        }
        #expect(decoded == thread)
    }

    @Test("transcript items become references only when the turn rebuilds them exactly; near misses stay inline")
    func referencesOnlyForExactItems() throws {
        // given: a turn, and a transcript holding items that it can and cannot rebuild
        let raw: ChappieJSONValue = ["type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                                     "content": [["type": "output_text", "text": "Hel"], ["type": "output_text", "text": "lo"]]]
        let call = ChappieRuntimeToolCall(callID: "call_1", name: "read", arguments: "{}", status: .completed, output: "out")
        let turn = ChappieThreadTurn(input: [.user("question", fastMode: true)], startedAt: ThreadFixtures.start,
                                     endedAt: ThreadFixtures.start, status: .failed, outputText: "shown", items: [raw], toolCalls: [call])
        var cited = ChappieInputMessage.assistant("Hello")
        cited.citations = [ChappieURLCitation(url: "https://example.com", title: "t", startIndex: 0, endIndex: 5)]
        let exact: [ChappieTranscriptItem] = [
            .message(.user("question", fastMode: true)), .message(.assistant("Hello")), .message(cited),
            .functionCall(ChappieFunctionCall(callID: "call_1", name: "read", arguments: "{}")),
            .functionCallOutput(callID: "call_1", output: "out"),
            .message(ChappieInputMessage(role: .assistant, text: "shown", isPartial: true)), .message(.assistant("shown")),
        ]
        let nearMisses: [ChappieTranscriptItem] = [
            .message(.user("question")), .message(.user("Hello")), .message(.assistant("Hello ")),
            .functionCall(ChappieFunctionCall(callID: "call_1", name: "read", arguments: "{ }")),
            .functionCallOutput(callID: "call_2", output: "out"), .message(ChappieInputMessage(role: .developer, text: "shown")),
        ]
        var thread = ThreadFixtures.small()
        thread.context.transcript = exact + nearMisses
        thread.turns = [turn]
        thread.formatVersion = 3

        // when
        let data = try ThreadCoding.encode(thread)

        // then: seven references, six items written whole, and the thread reads back equal
        let context = try #require(try object(data)["context"] as? [String: Any])
        let transcript = try #require(context["transcript"] as? [[String: Any]])
        let referenceKeys: Set<String> = ["in", "out", "call", "result", "reply", "partial"]
        let isReference = transcript.map { !referenceKeys.isDisjoint(with: $0.keys) }
        #expect(isReference == Array(repeating: true, count: 7) + Array(repeating: false, count: 6))
        guard case .thread(let decoded) = ThreadCoding.decode(data, expectedID: thread.id) else {
            Issue.record("not read back")
            return
        }
        #expect(decoded == thread)
        // and a turn's output text equal to its items' text is not written
        let turns = try #require(try object(data)["turns"] as? [[String: Any]])
        #expect(turns.first?["outputText"] as? String == "shown")
        var completed = turn
        completed.outputText = "Hello"
        thread.turns = [completed]
        let stored = try object(ThreadCoding.encode(thread))
        #expect((stored["turns"] as? [[String: Any]])?.first?["outputText"] == nil)
    }

    @Test("the thread's and the transcript's equal fields are written once, different ones both")
    func equalFieldsOnce() throws {
        // given: a thread whose context has the thread's model and dates; then: they are not repeated
        var thread = ThreadFixtures.small()
        thread.formatVersion = 3
        thread.context.updatedAt = thread.updatedAt
        thread.context.createdAt = thread.createdAt
        var context = try #require(try object(ThreadCoding.encode(thread))["context"] as? [String: Any])
        #expect(context["model"] == nil && context["updatedAt"] == nil && context["createdAt"] == nil)
        // and when they differ, both are written
        thread.context.model = "other-model"
        thread.context.updatedAt = thread.updatedAt.addingTimeInterval(0.5)
        context = try #require(try object(ThreadCoding.encode(thread))["context"] as? [String: Any])
        #expect(context["model"] as? String == "other-model" && context["updatedAt"] != nil)
        guard case .thread(let decoded) = ThreadCoding.decode(try ThreadCoding.encode(thread), expectedID: thread.id) else {
            Issue.record("not read back")
            return
        }
        #expect(decoded == thread)
    }

    @Test("a journal record is written in format 3, its equal fields once, and reads back equal; format 2 records still read")
    func journalRecords() throws {
        // given: a record of one turn, as appendTurn makes it
        let old = ThreadFixtures.small()
        let step = ThreadFormatFixture.withTool(2, question: "q")
        var new = old
        new.addTurnForTests(step)
        new.context.updatedAt = step.turn.endedAt
        let record = try #require(ThreadJournal.record(from: old, to: new, revision: 2))

        // when
        let line = try ThreadJournal.line(record)

        // then: the equal fields are left out, the transcript refers to the turn
        let fields = try object(line.dropLast())
        #expect(fields["format"] as? Int == 3)
        #expect(fields["updatedAt"] == nil && fields["contextModel"] == nil && fields["contextUpdatedAt"] == nil)
        let transcript = try #require(fields["transcript"] as? [[String: Any]])
        #expect(transcript.count == 5 && transcript.filter { $0["reasoning"] != nil }.count == 1,
                "all but the reasoning item (from the tool round, not the final response) are the turn's")
        let parsed = ThreadJournal.parse(line, base: 1)
        #expect(parsed.records == [record] && parsed.damagedAt == nil)
        // a record whose fields differ writes them
        var different = record
        different.updatedAt = different.updatedAt.addingTimeInterval(1)
        different.contextModel = "other"
        let differentFields = try object(ThreadJournal.line(different).dropLast())
        #expect(differentFields["updatedAt"] != nil && differentFields["contextModel"] as? String == "other"
                && differentFields["contextUpdatedAt"] != nil)
        #expect(ThreadJournal.parse(try ThreadJournal.line(different), base: 1).records == [different])
        // and the format 2 shape (what the redactor works on, and what format 2 journals hold) reads as the same record
        var v2Line = try JSONEncoder().encode(record)
        v2Line.append(UInt8(ascii: "\n"))
        #expect(ThreadJournal.parse(v2Line, base: 1).records == [record])
    }

    @Test("a reference to a turn item that is not there is damage, in a snapshot and in a journal record")
    func danglingReferences() throws {
        // given: a snapshot whose transcript refers to a turn it does not have; then: it is corrupt
        var thread = ThreadFixtures.small()
        thread.formatVersion = 3
        var snapshot = try object(ThreadCoding.encode(thread))
        var context = try #require(snapshot["context"] as? [String: Any])
        context["transcript"] = [["in": [0, 0]]]
        snapshot["context"] = context
        let damaged = try JSONSerialization.data(withJSONObject: snapshot)
        guard case .corrupt = ThreadCoding.decode(damaged, expectedID: thread.id) else {
            Issue.record("a dangling reference was read")
            return
        }
        // and a journal record that does so is damage when records follow it
        let record = #"{"format":3,"revision":2,"title":"t","model":"m","updatedAt":1,"archived":false,"transcript":[{"out":[0,3]}]}"#
        let good = #"{"format":3,"revision":3,"title":"t","model":"m","updatedAt":2,"archived":false}"#
        let parsed = ThreadJournal.parse(Data((record + "\n" + good + "\n").utf8), base: 1)
        #expect(parsed.records.isEmpty && parsed.damagedAt == 0)
        #expect(ThreadJournal.parse(Data((good.replacingOccurrences(of: "\"revision\":3", with: "\"revision\":2") + "\n").utf8), base: 1)
            .records.count == 1)
        #expect(ThreadJournal.parse(Data((record.replacingOccurrences(of: "\"format\":3", with: "\"format\":4") + "\n").utf8), base: 1)
            .records.isEmpty, "a record of a later format is not read")
    }
}
