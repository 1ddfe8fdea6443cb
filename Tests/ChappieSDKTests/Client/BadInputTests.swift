import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieCore

/// An SSE reply with one text delta of `characters` characters, in the backend's recorded format.
private func oneDeltaReply(characters: Int) -> Data {
    let text = String(repeating: "x", count: characters)
    let item = #"{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"output_text","text":"\#(text)"}]}"#
    return Data(("""
        event: response.created
        data: {"type":"response.created","response":{"id":"resp_big","status":"in_progress","output":[]}}

        event: response.output_text.delta
        data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"\(text)"}

        event: response.output_item.done
        data: {"type":"response.output_item.done","output_index":0,"item":\(item)}

        event: response.completed
        data: {"type":"response.completed","response":{"id":"resp_big","status":"completed","output":[\(item)]}}


        """).utf8)
}

@Suite("Bad input")
struct BadInputTests {
    @Test("a single delta of 8 MB streams whole")
    func bigDelta() async throws {
        try await withSignedInClient { emulator, client, _ in
            await emulator.enqueue(.replaySSE(oneDeltaReply(characters: 8 << 20)))
            var received = 0
            var completed: ChappieResponse?
            for try await event in client.stream("a big one") {
                if case .textDelta(let text) = event { received += text.utf8.count }
                if case .completed(let response) = event { completed = response }
            }
            #expect(received == 8 << 20)
            #expect(completed?.outputText.utf8.count == 8 << 20)
        }
    }

    @Test("a single delta of 16 MB is past the event cap: a typed error, not a crash or a hang")
    func oversizedDelta() async throws {
        try await withSignedInClient { emulator, client, _ in
            await emulator.enqueue(.replaySSE(oneDeltaReply(characters: 16 << 20)))
            let error = await #expect(throws: ChappieClientError.self) { _ = try await client.send("a huge one") }
            guard case .invalidResponse(let message)? = error else {
                Issue.record("expected invalidResponse, got \(String(describing: error))")
                return
            }
            #expect(message.contains("larger than"))
        }
    }
}
