import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieCore

/// The `response.create` frames the emulator received, parsed.
func webSocketFrames(_ emulator: ChappieEmulator) async throws -> [ChappieJSONValue] {
    try await emulator.recordedRequests().filter { $0.method == "WS" }.map { try ChappieJSONValue(jsonData: $0.body) }
}

@Suite("WebSocket conversations against the emulator")
struct WebSocketConversationTests {
    @Test("twenty turns go over one warmed socket, each sending only its new input with previous_response_id")
    func incrementalConversation() async throws {
        try await ChappieTestEmulator.with { emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            let before = emulator.connectionsAccepted
            let client = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            var replies: [String] = []
            for turn in 1...20 { replies.append(try await client.send("question \(turn)")) }
            #expect(emulator.connectionsAccepted - before == 1, "one socket, no HTTP request")
            let frames = try await webSocketFrames(emulator)
            try #require(frames.count == 21)
            #expect(frames[0]["generate"] == false && frames[0]["input"] == [])
            var previousID: String?
            for (index, frame) in frames.enumerated().dropFirst() {
                let input = try #require(frame["input"]?.arrayValue)
                let texts = input.compactMap { $0["content"]?.arrayValue?.first?["text"]?.stringValue }
                #expect(texts.last == "question \(index)")
                // The first turn carries the harness context after the empty prewarm; later ones
                // only the user's new message.
                if index > 1 { #expect(input.count == 1, "turn \(index) sent \(input.count) items") }
                #expect(frame["previous_response_id"]?.stringValue != nil)
                if let previousID { #expect(frame["previous_response_id"]?.stringValue != previousID) }
                previousID = frame["previous_response_id"]?.stringValue
            }
            // The model saw the whole conversation: the last reply answers the last question.
            #expect(replies.last?.contains("question 20") == true)
            #expect(await client.context().messages.count == 40)
        }
    }

    @Test("a chain the server lost (previous_response_not_found) is sent again in full on the same socket, once")
    func previousResponseNotFound() async throws {
        try await ChappieTestEmulator.with { emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            let client = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            _ = try await client.send("first question")
            let sockets = emulator.connectionsAccepted
            let lost = ChappieEmulator.ScriptedReply.errorEvent(
                status: 400, type: "invalid_request_error", code: "previous_response_not_found", message: "Previous response not found.")
            // when the server no longer has the previous response
            await emulator.enqueue(lost)
            let reply = try await client.send("second question")
            // then the same socket carries the full request, without previous_response_id
            #expect(reply.contains("second question"))
            #expect(emulator.connectionsAccepted == sockets, "the same socket")
            let frames = try await webSocketFrames(emulator)
            let (failed, resent) = (frames[frames.count - 2], frames[frames.count - 1])
            #expect(failed["previous_response_id"]?.stringValue != nil)
            #expect(resent["previous_response_id"] == nil)
            let texts = (resent["input"]?.arrayValue ?? []).compactMap { $0["content"]?.arrayValue?.first?["text"]?.stringValue }
            #expect(texts.contains("first question") && texts.last == "second question")
            // and only once: lost again on the resend, the turn fails
            await emulator.enqueue(lost)
            await emulator.enqueue(lost)
            await #expect(throws: ChappieClientError.self) { _ = try await client.send("third question") }
        }
    }

    @MainActor
    @Test("after a sign-out the socket is not reused: the next sign-in's turn opens a new one and sends the full request")
    func newSocketAfterSignOut() async throws {
        try await ChappieTestEmulator.with { emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            let client = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            _ = try await client.send("before")
            try await ChappieAuthSession(configuration: configuration).signOut()
            try await ChappieTestEmulator.signIn(configuration)
            let before = emulator.connectionsAccepted
            _ = try await client.send("after")
            #expect(emulator.connectionsAccepted - before == 1)
            let last = try #require(try await webSocketFrames(emulator).last)
            #expect(last["previous_response_id"] == nil)
            let texts = (last["input"]?.arrayValue ?? []).compactMap { $0["content"]?.arrayValue?.first?["text"]?.stringValue }
            let reply = try #require(await client.context().messages.dropFirst().first?.text)
            #expect(texts.suffix(3) == ["before", reply, "after"])
        }
    }
}
