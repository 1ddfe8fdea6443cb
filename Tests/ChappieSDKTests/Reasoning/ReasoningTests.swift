import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieCore

@Suite("Reasoning options")
struct ReasoningTests {
    @Test("a reasoning summary on request streams summary deltas; the encrypted reasoning is replayed next turn")
    func summaries() async throws {
        try await withSignedInClient { emulator, client, _ in
            // when
            var summary = ""
            var completed: ChappieResponse?
            let options = ChappieMessageOptions(effort: .high, reasoningSummary: .auto, verbosity: .low)
            for try await event in client.stream(.user("think about it", options: options)) {
                if case .reasoningSummaryDelta(let text) = event { summary += text }
                if case .completed(let response) = event { completed = response }
            }
            // then: the request asked for it
            let body = try json(try await lastResponseRequest(emulator))
            #expect(body["reasoning"] == ["effort": "high", "summary": "auto"])
            #expect(body["include"] == ["reasoning.encrypted_content"])
            #expect(body["text"] == ["verbosity": "low"])
            #expect(!summary.isEmpty)
            #expect(completed?.reasoningSummary == summary)
            // and the next turn sends the reasoning item back with its encrypted content
            _ = try await client.send("and then?")
            let input = try await lastInput(emulator)
            let reasoning = try #require(input.first { $0["type"] == "reasoning" })
            #expect(reasoning["encrypted_content"]?.stringValue?.isEmpty == false)
        }
    }

    @Test("no reasoning key, include or text without options")
    func nothingByDefault() async throws {
        try await withSignedInClient { emulator, client, _ in
            _ = try await client.send("plain")
            let body = try json(try await lastResponseRequest(emulator))
            #expect(body["reasoning"] == nil)
            #expect(body["include"] == [])
            #expect(body["text"] == nil)
        }
    }

    @Test("typed effort and options decode from data saved before the new fields")
    func typedEffort() throws {
        var options = ChappieMessageOptions(effort: .minimal)
        #expect(options.reasoningEffort == "minimal")
        options.effort = "future-level"
        #expect(options.reasoningEffort == "future-level")
        let old = try JSONDecoder().decode(ChappieMessageOptions.self, from: Data(#"{"fastMode":false,"reasoningEffort":"low"}"#.utf8))
        #expect(old.effort == .low)
        #expect(old.reasoningSummary == nil)
        let model = ChappieModel(slug: "m", displayName: "M", supportedReasoningLevels: ["low", "high"])
        #expect(ChappieReasoningEffort.levels(of: model) == [.low, .high])
    }
}
