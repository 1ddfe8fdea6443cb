import ChappieSDK
import ChappieSDKRuntime
import ChappieTestSupport
import Foundation
import Testing

/// What `--json` and the listings show: usage with its credits, a turn that did not complete.
@Suite("chappie's JSON and listings")
struct CLIJSONListingTests {
    @Test("usage --json carries the credits the backend reports and whether the limit is reached", .timeLimit(.minutes(1)))
    func usageCredits() async throws {
        let usage = try await CLIProcess.run(["usage", "--emulator", "--json"], environment: CLIProcess.isolatedEnvironment())
        #expect(usage.status == 0, "\(usage.stderr)")
        let object = try #require(try usage.jsonLines().first)
        #expect(object["credits"] == ["has_credits": false, "unlimited": false, "balance": "0"], "\(usage.stdout)")
        #expect(object["limit_reached"] == .bool(false), "\(usage.stdout)")
        #expect(object["primary"]?["used_percent"] != nil, "\(usage.stdout)")
    }

    @Test("threads show --json marks a turn cut short as partial; threads list counts its turns", .timeLimit(.minutes(1)))
    func partialTurn() async throws {
        let environment = CLIProcess.isolatedEnvironment()
        let id = try #require(UUID(uuidString: "beef0000-0000-4000-8000-000000000001"))
        let context = ChappieClientContext(sessionID: "s", threadID: id.uuidString.lowercased(), model: "gpt-5.5",
                                           messages: [.user("tell me"), .assistant("Once upon")], compactedSummary: nil,
                                           createdAt: Date(), updatedAt: Date())
        let turns = [ChappieThreadTurn(input: [.user("tell me")], startedAt: Date(), endedAt: Date(), status: .cancelled, outputText: "Once upon"),
                     ChappieThreadTurn(input: [.user("again")], startedAt: Date(), endedAt: Date(), status: .failed)]
        _ = try await CLIThreadStore.store(for: environment).save(ChappieThread(id: id, title: "cut short", context: context, turns: turns))

        let shown = try await CLIProcess.run(["threads", "show", "BEEF", "--json"], environment: environment)
        #expect(shown.status == 0, "\(shown.stderr)")
        let object = try #require(try shown.jsonLines().first)
        #expect(object["id"] == .string(id.uuidString.lowercased()))
        let recorded = try #require(object["turns"]?.arrayValue)
        #expect(recorded.map { $0["partial"] } == [.bool(true), .bool(false)])
        #expect(recorded.map { $0["status"] } == ["cancelled", "failed"])

        let listed = try await CLIProcess.run(["threads", "list"], environment: environment)
        #expect(listed.stdout.contains("TURNS") && !listed.stdout.contains("MSGS"), "\(listed.stdout)")
        #expect(listed.stdout.contains(id.uuidString.lowercased() + "  "), "\(listed.stdout)")
    }
}
