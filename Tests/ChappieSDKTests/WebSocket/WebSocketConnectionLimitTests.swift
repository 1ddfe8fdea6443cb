import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieCore

/// The user texts of a `response.create` frame's input, in order.
private func inputTexts(_ frame: ChappieJSONValue) -> [String] {
    (frame["input"]?.arrayValue ?? []).compactMap { $0["content"]?.arrayValue?.first?["text"]?.stringValue }
}

@Suite("The WebSocket's connection limit (websocket_connection_limit_reached) against the emulator")
struct WebSocketConnectionLimitTests {
    @Test("before any text: a new socket carries the full request, once; reported again there, the turn fails")
    func recoveredBeforeText() async throws {
        try await ChappieTestEmulator.with { emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            let client = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            _ = try await client.send("first question")
            let sockets = emulator.connectionsAccepted
            let framesBefore = try await webSocketFrames(emulator).count
            // when the socket reports its limit before the answer's first text
            await emulator.enqueue(.webSocketConnectionLimitReached)
            let reply = try await client.send("second question")
            // then one new socket carries the full request once, and the turn completes
            #expect(reply.contains("second question"))
            #expect(emulator.connectionsAccepted == sockets + 1, "one new socket")
            let frames = try await webSocketFrames(emulator)
            try #require(frames.count == framesBefore + 2, "the request and one resend")
            let (limited, resent) = (frames[frames.count - 2], frames[frames.count - 1])
            #expect(limited["previous_response_id"]?.stringValue != nil)
            #expect(resent["previous_response_id"] == nil)
            #expect(inputTexts(resent).contains("first question") && inputTexts(resent).last == "second question")
            // and only once: reported again on the new socket, the turn ends with the typed error
            await emulator.enqueue(.webSocketConnectionLimitReached)
            await emulator.enqueue(.webSocketConnectionLimitReached)
            let third = try await webSocketFrames(emulator).count
            await #expect(throws: ChappieClientError.webSocketConnectionLimitReached) { _ = try await client.send("third question") }
            #expect(try await webSocketFrames(emulator).count == third + 2)
        }
    }

    @Test("after text was shown: the typed error, no resend, and the text shown stays as a partial message")
    func errorAfterText() async throws {
        try await ChappieTestEmulator.with { emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            let client = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            _ = try await client.send("first question")
            let sockets = emulator.connectionsAccepted
            let framesBefore = try await webSocketFrames(emulator).count
            // when the limit is reported after the first piece of text
            let limit = #"{"type":"error","status":400,"error":{"type":"invalid_request_error","code":"websocket_connection_limit_reached","#
                + #""message":"Responses websocket connection limit reached (60 minutes). Create a new websocket connection to continue."}}"#
            let events = [
                #"{"type":"response.created","response":{"id":"resp_limit","object":"response","status":"in_progress","model":"gpt-5.5","output":[]}}"#,
                #"{"type":"response.output_text.delta","item_id":"msg_limit","output_index":0,"content_index":0,"delta":"Partial "}"#,
                limit,
            ]
            await emulator.enqueue(.replaySSE(Data(events.map { "data: \($0)\n\n" }.joined().utf8)))
            var shown = ""
            var thrown: (any Error)?
            do {
                for try await event in client.stream("second question") {
                    if case .textDelta(let text) = event { shown += text }
                }
            } catch {
                thrown = error
            }
            // then the turn ends with the typed error, nothing is sent again
            #expect(thrown as? ChappieClientError == .webSocketConnectionLimitReached)
            #expect(shown == "Partial ")
            #expect(try await webSocketFrames(emulator).count == framesBefore + 1, "no resend")
            #expect(emulator.connectionsAccepted == sockets)
            #expect(await client.context().messages.last?.text == "Partial ")
        }
    }
}
