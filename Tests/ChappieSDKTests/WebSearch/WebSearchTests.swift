import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieCore

@Suite("Web search against the emulator")
struct WebSearchTests {
    @Test("a reply of two messages: a citation of the second counts in outputText, and in its own message's text")
    func citationsAcrossMessages() throws {
        let first: ChappieJSONValue = ["type": "message", "role": "assistant",
                                       "content": [["type": "output_text", "text": "Let me look that up. ", "annotations": []]]]
        let second: ChappieJSONValue = [
            "type": "message", "role": "assistant",
            "content": [["type": "output_text", "text": "Swift 6.2 shipped.",
                         "annotations": [["type": "url_citation", "url": "https://swift.org", "title": "Swift", "start_index": 0, "end_index": 9]]]],
        ]
        let response = ChappieResponse(id: "resp_1", model: nil, outputText: "Let me look that up. Swift 6.2 shipped.", reasoningSummary: "",
                                       usage: nil, items: [first, second])
        let citation = try #require(response.citations.first)
        #expect(citation.range(in: response.outputText).map { String(response.outputText[$0]) } == "Swift 6.2")
        let message = ChappieTranscriptItem.fromOutputItem(second)?.message
        #expect(message.flatMap { message in message.citations.first?.range(in: message.text).map { String(message.text[$0]) } } == "Swift 6.2")
    }

    /// The emulator's model whose catalog entry supports the search tool.
    static let searchModel = "gpt-5.6-sol"

    @Test("opted in per client: the web_search tool is sent, search steps stream, citations land in the response and the context")
    func perClient() async throws {
        try await withSignedInClient(configure: { $0.webSearch = true; $0.model = Self.searchModel }) { emulator, client, _ in
            var steps: [ChappieWebSearchCall] = []
            var completed: ChappieResponse?
            for try await event in client.stream("weather in Paris") {
                switch event {
                case .webSearch(let call): steps.append(call)
                case .completed(let response): completed = response
                default: break
                }
            }
            let tools = try #require(try json(try await lastResponseRequest(emulator))["tools"]?.arrayValue)
            #expect(tools.contains(["type": "web_search"]))
            #expect(steps.map(\.action) == [.search(query: "weather in Paris"), .search(query: "weather in Paris"),
                                            .openPage(url: ChappieEmulator.webSearchPageURL), .openPage(url: ChappieEmulator.webSearchPageURL)])
            #expect(steps.map(\.isFinished) == [false, true, false, true])
            let response = try #require(completed)
            let citation = try #require(response.citations.first)
            #expect(citation.url == ChappieEmulator.webSearchPageURL)
            #expect(citation.title == ChappieEmulator.webSearchPageTitle)
            let range = try #require(citation.range(in: response.outputText))
            #expect(response.outputText[range] == "source: \(ChappieEmulator.webSearchPageTitle)")
            #expect(response.webSearchCalls.count == 2)
            let reply = try #require(await client.context().messages.last)
            #expect(reply.citations == [citation])
        }
    }

    @Test("over the WebSocket too: the steps stream and the reply carries its citation")
    func overWebSocket() async throws {
        try await withSignedInClient(configure: { $0.webSearch = true; $0.model = Self.searchModel; $0.streamingTransportPolicy = .default }) { _, client, _ in
            var steps = 0
            var completed: ChappieResponse?
            for try await event in client.stream("weather in Lyon") {
                if case .webSearch = event { steps += 1 }
                if case .completed(let response) = event { completed = response }
            }
            #expect(steps == 4)
            #expect(completed?.transport == .webSocket)
            #expect(completed?.citations.map(\.url) == [ChappieEmulator.webSearchPageURL])
        }
    }

    @Test("the WebSocket warm-up offers the search tool too, so the first turn goes out on top of it")
    func warmUpCarriesSearch() async throws {
        try await withSignedInClient(configure: { $0.webSearch = true; $0.model = Self.searchModel; $0.streamingTransportPolicy = .default }) { emulator, client, _ in
            // when
            _ = try await client.send("weather in Lyon")
            // then: before, the warm-up had no search tool and the first turn was sent in full
            let frames = try await webSocketFrames(emulator)
            try #require(frames.count == 2)
            #expect(frames[0]["generate"] == false)
            #expect(frames[0]["tools"]?.arrayValue?.contains { $0["type"] == "web_search" } == true)
            #expect(frames[1]["previous_response_id"]?.stringValue != nil)
        }
    }

    @Test("a configured search that the model does not offer is left out with one warning per model, not one per turn")
    func skippedSearchWarnsOnce() async throws {
        let log = ChappieInMemoryLogSink()
        try await withSignedInClient(configure: { $0.webSearch = true; $0.logSink = log }) { emulator, client, _ in
            // when
            _ = try await client.send("one")
            _ = try await client.send("two")
            // then
            let warnings = log.events.filter { $0.message == "web_search.skipped" }
            #expect(warnings.count == 1)
            #expect(warnings.first?.metadata["model"] == ChappieClient.defaultModel)
            let bodies = try await responseRequests(emulator).map { try json($0) }
            #expect(!bodies.contains { $0["tools"]?.arrayValue?.contains { $0["type"] == "web_search" } == true })
        }
    }

    @Test("off by default; a message turns it on, or off, for its turn")
    func perMessage() async throws {
        try await withSignedInClient(configure: { $0.model = Self.searchModel }) { emulator, client, _ in
            _ = try await client.send("no search")
            #expect(try json(try await lastResponseRequest(emulator))["tools"]?.arrayValue?.isEmpty == true)
            var options = ChappieMessageOptions()
            options.webSearch = true
            let reply = try await client.send(.user("search this", options: options))
            #expect(reply.hasSuffix("(source: \(ChappieEmulator.webSearchPageTitle))"))
            #expect(try json(try await lastResponseRequest(emulator))["tools"]?.arrayValue == [["type": "web_search"]])
        }
    }

    @Test("a model without the search tool: asked for in a message, refused before sending; the client default leaves it out")
    func unsupportedModel() async throws {
        try await withSignedInClient(configure: { $0.webSearch = true }) { emulator, client, _ in
            var options = ChappieMessageOptions()
            options.webSearch = true
            await #expect(throws: ChappieInputError.webSearchUnsupported(model: "gpt-5.5")) {
                try await client.send(.user("search this", options: options))
            }
            #expect(await responseRequests(emulator).isEmpty)
            _ = try await client.send("client default only")
            #expect(try json(try await lastResponseRequest(emulator))["tools"]?.arrayValue?.isEmpty == true)
        }
    }
}
