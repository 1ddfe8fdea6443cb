import ChappieSDKTesting
import ChappieTransport
import Foundation
import Testing
@_spi(ChappieTesting) @testable import ChappieCore

/// A `/v1/models` answer: documented fields, a hidden entry, unknown fields and visibility values,
/// priorities that disagree with the server's order, and malformed entries.
private let catalog = """
{"models":[
 {"slug":"gpt-6.1-sol","display_name":"GPT-6.1-Sol","visibility":"list","priority":9,"brand_new":{"nested":[1,2]}},
 {"slug":"gpt-6-hidden","display_name":"Hidden","visibility":"hide"},
 {"slug":"gpt-6-sol","display_name":"GPT-6-Sol","visibility":"list","supported_reasoning_levels":[{"effort":"low"},{"effort":"high"}],
  "context_window":400000},
 {"slug":"gpt-6-future","display_name":"Future","visibility":"experimental_preview"},
 {"slug":"gpt-6-novis","display_name":"No visibility"},
 {"display_name":"no slug"},
 42,
 {"slug":"gpt-6-luna","display_name":"GPT-6-Luna","visibility":"list","priority":1,"input_modalities":["text"]}
]}
"""

@Suite("Public API model catalog")
struct PublicModelCatalogTests {
    @Test("models() reads {\"models\":[…]} from /v1/models, shows only visibility list, in the server's order, tolerating the rest")
    func listed() async throws {
        let transport = ScriptedTransport(replies: [.json(200, catalog)])
        let (client, _) = try await publicAPIClient(transport)
        let models = try await client.models()
        #expect(models.map(\.slug) == ["gpt-6.1-sol", "gpt-6-sol", "gpt-6-luna"])
        #expect(models.map(\.displayName) == ["GPT-6.1-Sol", "GPT-6-Sol", "GPT-6-Luna"])
        #expect(models[1].supportedReasoningLevels == ["low", "high"])
        #expect(models[1].contextWindow == 400_000)
        let request = try #require(await transport.requests.first)
        #expect(request.url.path == "/v1/models")
        #expect(request.header("ChatGPT-Account-ID") == nil && request.header("originator") == nil)
    }

    @Test("bestAvailableModel() and the filter work on what this catalog carries (usable in requests, text unless it says otherwise)")
    func best() async throws {
        let transport = ScriptedTransport(replies: [.json(200, catalog)])
        let (client, _) = try await publicAPIClient(transport)
        #expect(try await client.bestAvailableModel()?.slug == "gpt-6.1-sol")
        #expect(try await client.models(filter: ChappieModelFilter(reasoningLevel: "high")).map(\.slug) == ["gpt-6-sol"])
        #expect(try await client.fallbackModel(for: "gpt-6.1-sol")?.slug == "gpt-6-sol")
    }

    @Test("a body that is not {\"models\":[…]} is a typed error", arguments: [#"{"object":"list","data":[{"slug":"x","display_name":"X"}]}"#, "[]"])
    func wrongShape(body: String) async throws {
        let transport = ScriptedTransport(replies: [.json(200, body)])
        let (client, _) = try await publicAPIClient(transport)
        let error = await #expect(throws: ChappieClientError.self) { _ = try await client.models() }
        guard case .invalidResponse? = error else { Issue.record("got \(String(describing: error))"); return }
    }

    @Test("the catalog is fetched again when another account signs in, not on every call")
    func refreshedOnAccountChange() async throws {
        let transport = ScriptedTransport { _, index in
            .json(200, index == 0 ? catalog : #"{"models":[{"slug":"other","display_name":"Other","visibility":"list"}]}"#)
        }
        let (client, configuration) = try await publicAPIClient(transport)
        #expect(try await client.models().count == 3)
        #expect(try await client.models().count == 3)
        #expect(await transport.requests.count == 1)
        // another registration (another account or workspace) signs in through the same slot
        try await CredentialManager.shared(for: configuration).adopt(signInWithChatGPTCredential(clientID: "oaiapp_other", subject: "sub-2"))
        #expect(try await client.models().map(\.slug) == ["other"])
        #expect(await transport.requests.count == 2)
    }
}
