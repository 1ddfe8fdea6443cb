@testable import ChappieCore
import ChappieSDKTesting
import ChappieTransport
import Foundation
import Testing

private let endpoints = ChappieEndpoints(authIssuer: URL(string: "https://auth.test")!, backend: URL(string: "https://backend.test/backend-api")!)

private let catalog = """
{"models":[
 {"slug":"gpt-b","display_name":"B","priority":5,"supported_in_api":true,"visibility":"list","input_modalities":["text"],
  "supported_reasoning_levels":[{"effort":"low"},{"effort":"ultra","description":"new"}],"brand_new_field":{"x":1}},
 {"display_name":"no slug, malformed"},
 "not even an object",
 {"slug":"gpt-a","display_name":"A","priority":1,"supported_in_api":true,"visibility":"hide","input_modalities":["text","image"],
  "supported_reasoning_levels":[{"effort":"medium"}],"context_window":272000,"supports_parallel_tool_calls":true},
 {"slug":"gpt-c","display_name":"C","priority":9,"supported_in_api":false,"visibility":"list","input_modalities":["image"]}
]}
"""

private func sse(_ text: String, etag: String) -> ScriptedTransport.Reply {
    let body = """
        event: response.created\ndata: {"type":"response.created","response":{"id":"resp_1"}}\n\n\
        event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"\(text)","item_id":"msg_1"}\n\n\
        event: response.completed\ndata: {"type":"response.completed","response":{"id":"resp_1"}}\n\n
        """
    return ScriptedTransport.Reply(status: 200, headers: ["content-type": "text/event-stream", "x-models-etag": etag], chunks: [Data(body.utf8)])
}

private func client(_ transport: ScriptedTransport, time: ChappieVirtualTime) async throws -> ChappieClient {
    let configuration = try await ChappieAuthFixtures.signedIn(ChappieConfiguration(endpoints: endpoints))
    return ChappieClient(configuration: configuration, transport: transport, timeSource: time.timeSource)
}

@Suite("Model catalog")
struct ModelCatalogTests {
    @Test("a malformed entry is skipped, the rest load sorted by priority, unknown fields and efforts are kept raw")
    func tolerantDecoding() async throws {
        let transport = ScriptedTransport(replies: [.json(200, catalog, headers: ["etag": "v1"])])
        let models = try await client(transport, time: ChappieVirtualTime()).models()
        #expect(models.map(\.slug) == ["gpt-a", "gpt-b", "gpt-c"])
        #expect(models[1].supportedReasoningLevels == ["low", "ultra"])
        #expect(models[0].contextWindow == 272_000)
        let request = try #require(await transport.requests.first)
        #expect(request.url.query == "client_version=\(ChappieVersion.modelsClientVersion)")
    }

    @Test("an OpenAI-style data envelope is accepted too")
    func dataEnvelope() async throws {
        let transport = ScriptedTransport(replies: [.json(200, #"{"data":[{"slug":"x","display_name":"X","priority":0}]}"#)])
        #expect(try await client(transport, time: ChappieVirtualTime()).models().map(\.slug) == ["x"])
    }

    @Test("the catalog is cached for 300 seconds and fetched again after")
    func cacheLifetime() async throws {
        let time = ChappieVirtualTime()
        let transport = ScriptedTransport(replies: [.json(200, catalog, headers: ["etag": "v1"])])
        let client = try await client(transport, time: time)
        _ = try await client.models()
        _ = try await client.models()
        #expect(await transport.requests.count == 1)
        time.advance(by: 301)
        _ = try await client.models()
        #expect(await transport.requests.count == 2)
    }

    @Test("a response's x-models-etag that differs from the cached ETag makes models() refetch; an equal one keeps the cache",
          arguments: [("v2", 2), ("v1", 1)])
    func etagFromResponses(responseETag: String, expectedFetches: Int) async throws {
        let transport = ScriptedTransport { request, _ in
            request.url.path.hasSuffix("/models") ? .json(200, catalog, headers: ["etag": "v1"]) : sse("hi", etag: responseETag)
        }
        let client = try await client(transport, time: ChappieVirtualTime())
        _ = try await client.models()
        _ = try await client.send("hi")
        _ = try await client.models()
        #expect(await transport.requests(endingWith: "/models").count == expectedFetches)
    }

    @Test("over the WebSocket, the handshake's x-models-etag that differs from the cached ETag makes models() refetch; an equal one keeps the cache",
          arguments: [("v2", 2), ("v1", 1)])
    func etagFromWebSocketHandshake(handshakeETag: String, expectedFetches: Int) async throws {
        let transport = ScriptedTransport { _, _ in .json(200, catalog, headers: ["etag": "v1"]) }
        let webSockets = ScriptedWebSocketConnector([.events(scriptedEvents(["hi"]), then: .open)],
                                                    handshakeResponseHeaders: ["X-Models-Etag": handshakeETag])
        let configuration = try await ChappieAuthFixtures.signedIn(ChappieConfiguration(endpoints: endpoints))
        let client = ChappieClient(configuration: configuration, transport: transport, webSockets: webSockets,
                                   timeSource: ChappieVirtualTime().timeSource)
        _ = try await client.models()
        // when: a turn over the WebSocket (before, its head was a made-up 101 without headers)
        let reply = try await client.send("hi")
        _ = try await client.models()
        // then
        #expect(reply == "hi")
        #expect(await webSockets.connectCount == 1)
        #expect(await transport.requests(endingWith: "/models").count == expectedFetches)
    }

    @Test("every filter field narrows the list", arguments: [
        (ChappieModelFilter(supportedInAPI: false), ["gpt-c"]),
        (ChappieModelFilter(inputModality: "image"), ["gpt-a", "gpt-c"]),
        (ChappieModelFilter(supportsParallelToolCalls: true), ["gpt-a"]),
        (ChappieModelFilter(supportsSearchTool: true), []),
        (ChappieModelFilter(reasoningLevel: "ultra"), ["gpt-b"]),
        (ChappieModelFilter(), ["gpt-a", "gpt-b", "gpt-c"]),
    ])
    func filters(filter: ChappieModelFilter, expected: [String]) async throws {
        let transport = ScriptedTransport(replies: [.json(200, catalog)])
        #expect(try await client(transport, time: ChappieVirtualTime()).models(filter: filter).map(\.slug) == expected)
    }

    @Test("best available prefers picker-visible models; fallback skips the current one")
    func bestAndFallback() async throws {
        let transport = ScriptedTransport(replies: [.json(200, catalog)])
        let client = try await client(transport, time: ChappieVirtualTime())
        #expect(try await client.bestAvailableModel()?.slug == "gpt-b")
        #expect(try await client.fallbackModel(for: "gpt-b")?.slug == "gpt-a")
    }

    @Test("an effort the model does not support is refused before sending")
    func unsupportedEffort() async throws {
        let transport = ScriptedTransport { request, _ in
            request.url.path.hasSuffix("/models") ? .json(200, catalog) : sse("hi", etag: "v1")
        }
        let client = try await client(transport, time: ChappieVirtualTime())
        _ = try await client.models()
        await client.selectModel("gpt-a")
        await #expect(throws: ChappieClientError.invalidRequest("gpt-a does not support reasoning effort low")) {
            try await client.send(.user("quick", fastMode: true))
        }
        #expect(await transport.requests(endingWith: "/responses").isEmpty)
        _ = try await client.send(.user("deep", options: ChappieMessageOptions(reasoningEffort: "medium")))
        let body = try #require(await transport.requests(endingWith: "/responses").first?.jsonBody)
        #expect(body["reasoning"]?["effort"] == "medium")
    }

    @Test("a 401 on /models refreshes once and retries; a second 401 is an error and the credential stays")
    func unauthorizedModels() async throws {
        let fresh = ChappieAuthFixtures.credential()
        let transport = ScriptedTransport { request, index in
            if request.url.path.hasSuffix("/oauth/token") {
                return .json(200, #"{"access_token":"\#(fresh.accessTokenForTests)","refresh_token":"rt_new","id_token":"\#(fresh.idTokenForTests)"}"#)
            }
            return .json(401, #"{"detail":"Unauthorized"}"#)
        }
        let client = try await client(transport, time: ChappieVirtualTime())
        await #expect(throws: ChappieClientError.self) { try await client.models() }
        #expect(await transport.requests(endingWith: "/models").count == 2)
        #expect(await transport.requests(endingWith: "/oauth/token").count == 1)
        _ = try await client.accountInfo()
    }
}
