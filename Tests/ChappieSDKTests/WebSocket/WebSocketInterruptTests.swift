import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieCore

@Suite("Cancelling a WebSocket turn interrupts the response and keeps the socket, against the emulator")
struct WebSocketInterruptTests {
    /// How the caller leaves the stream.
    enum Leaving: String, CaseIterable, CustomTestStringConvertible {
        case stopsIterating, cancelsTheTask
        var testDescription: String { rawValue }
    }

    @Test("the socket gets response.interrupt, carries the next turn, and the text shown stays what the caller saw",
          arguments: Leaving.allCases)
    func cancelledTurn(leaving: Leaving) async throws {
        try await ChappieTestEmulator.with { emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            let client = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            _ = try await client.send("first question")
            let sockets = emulator.connectionsAccepted
            // given a reply that drips one event a second
            await emulator.enqueue(.slowText("one two three four five six seven eight nine ten", eventInterval: .seconds(1)))
            // when the caller leaves after the first piece of text
            let shown: String
            switch leaving {
            case .stopsIterating:
                var text = ""
                for try await event in client.stream("second question") {
                    if case .textDelta(let delta) = event {
                        text += delta
                        break
                    }
                }
                shown = text
            case .cancelsTheTask:
                let (firstText, seen) = AsyncStream<Void>.makeStream()
                let consumer = Task {
                    var text = ""
                    do {
                        for try await event in client.stream("second question") {
                            if case .textDelta(let delta) = event {
                                text += delta
                                seen.yield()
                            }
                        }
                    } catch {}
                    return text
                }
                var waiting = firstText.makeAsyncIterator()
                _ = await waiting.next()
                consumer.cancel()
                shown = await consumer.value
            }
            try #require(!shown.isEmpty)
            // then the next turn goes over the same socket, in full
            let reply = try await client.send("third question")
            #expect(reply.contains("third question"))
            #expect(emulator.connectionsAccepted == sockets, "the same socket")
            let frames = try await webSocketFrames(emulator)
            try #require(frames.count >= 3)
            let (cancelled, interrupt, next) = (frames[frames.count - 3], frames[frames.count - 2], frames[frames.count - 1])
            #expect(cancelled["type"] == "response.create")
            #expect(interrupt["type"] == "response.interrupt")
            #expect(interrupt["mode"] == "discard_partial_items")
            #expect(interrupt["response_id"]?.stringValue?.hasPrefix("resp_") == true)
            #expect(next["type"] == "response.create" && next["previous_response_id"] == nil)
            // and the partial text starts with the text the caller saw (deltas that reached the
            // stream's buffer before the cancellation count as shown too), sent back with the next request
            let messages = await client.context().messages
            try #require(messages.count >= 4)
            #expect(messages[messages.count - 4].text == "second question")
            let partial = messages[messages.count - 3]
            #expect(partial.text.hasPrefix(shown))
            #expect(partial.isPartial)
            let texts = (next["input"]?.arrayValue ?? []).compactMap { $0["content"]?.arrayValue?.first?["text"]?.stringValue }
            #expect(texts.suffix(2) == [partial.text, "third question"])
        }
    }

    @Test("a server that never confirms the interrupt: the cancelled caller returns, the socket is closed, the next turn opens a new one")
    func unconfirmedInterrupt() async throws {
        try await ChappieTestEmulator.with { emulator, configuration in
            try await ChappieTestEmulator.signIn(configuration)
            let client = ChappieClient(configuration: configuration, timeSource: ChappieVirtualTime().timeSource)
            _ = try await client.send("first question")
            let sockets = emulator.connectionsAccepted
            // given a reply that stops after its first text and then answers nothing
            await emulator.enqueue(.cut(.text("one two three four"), afterEvents: 6, ending: .stallIgnoringInterrupts))
            var shown = ""
            for try await event in client.stream("second question") {
                if case .textDelta(let delta) = event {
                    shown += delta
                    break
                }
            }
            try #require(!shown.isEmpty)
            // then the next turn waits out the unanswered interrupt and goes over a new socket
            let reply = try await client.send("third question")
            #expect(reply.contains("third question"))
            #expect(emulator.connectionsAccepted == sockets + 1, "a new socket")
            let last = try #require(try await webSocketFrames(emulator).last)
            #expect(last["previous_response_id"] == nil)
        }
    }
}
