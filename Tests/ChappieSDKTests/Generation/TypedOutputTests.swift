import ChappieEmulator
import ChappieSDKTesting
import Foundation
import Testing
@testable import ChappieCore

private struct Loose: ChappieGenerable {
    var name: String
    static var generationSchema: ChappieGenerationSchema {
        ChappieGenerationSchema(jsonSchema: ["type": "object", "properties": ["name": ["type": "string"]]])
    }
}

private struct Unusable: ChappieGenerable {
    var when: Date
}

@Suite("Typed output against the emulator")
struct TypedOutputTests {
    @Test("send(_:generating:) sends a strict json_schema text.format and decodes the conforming reply")
    func sendGenerating() async throws {
        try await withSignedInClient { emulator, client, _ in
            // when
            let recipe = try await client.send("a pudding", generating: Recipe.self)
            // then: the emulator's default reply follows the schema
            #expect(recipe.title == "a pudding")
            #expect(recipe.course == .starter)
            #expect(recipe.steps.count == 1)
            #expect(recipe.wine == "a pudding")
            let body = try json(try await lastResponseRequest(emulator))
            let format = try #require(body["text"]?["format"])
            #expect(format["type"] == "json_schema")
            #expect(format["strict"] == true)
            #expect(format["name"] == "Recipe")
            #expect(format["schema"] == Recipe.generationSchema.jsonSchema)
        }
    }

    @Test("a plain send sends no text key")
    func plainSendHasNoText() async throws {
        try await withSignedInClient { emulator, client, _ in
            _ = try await client.send("hello")
            #expect(try json(try await lastResponseRequest(emulator))["text"] == nil)
        }
    }

    @Test("a schema that is not an object is wrapped and unwrapped")
    func wrappedRoot() async throws {
        try await withSignedInClient { emulator, client, _ in
            let titles = try await client.send("titles", generating: [String].self)
            #expect(titles == ["titles"])
            let schema = try json(try await lastResponseRequest(emulator))["text"]?["format"]?["schema"]
            #expect(schema?["required"] == ["value"])
        }
    }

    @Test("a schema the backend refuses is ChappieGenerationError.schemaRejected")
    func schemaRejected() async throws {
        try await withSignedInClient { _, client, _ in
            let error = await #expect(throws: ChappieGenerationError.self) { try await client.send("x", generating: Loose.self) }
            guard case .schemaRejected(let reason) = error else { Issue.record("\(String(describing: error))"); return }
            #expect(reason.contains("additionalProperties"))
        }
    }

    @Test("a type with no usable schema fails before anything is sent")
    func invalidSchemaNotSent() async throws {
        try await withSignedInClient { emulator, client, _ in
            let error = await #expect(throws: ChappieGenerationError.self) { try await client.send("x", generating: Unusable.self) }
            guard case .invalidSchema = error else { Issue.record("\(String(describing: error))"); return }
            #expect(await responseRequests(emulator).isEmpty)
        }
    }

    @Test("a reply that completes in the middle of its JSON is truncatedReply with the raw text")
    func truncatedReply() async throws {
        try await withSignedInClient { emulator, client, _ in
            await emulator.enqueue(.text(#"{"title":"Half a pud"#))
            let error = await #expect(throws: ChappieGenerationError.self) { try await client.send("x", generating: Recipe.self) }
            #expect(error == .truncatedReply(rawText: #"{"title":"Half a pud"#))
        }
    }

    @Test("a reply that does not fit the type is undecodableReply, raw text bounded and redacted")
    func undecodableReply() async throws {
        try await withSignedInClient { emulator, client, _ in
            let secretish = "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijklmnop"
            await emulator.enqueue(.text(#"{"title":"\#(secretish)","course":"brunch"}"# + String(repeating: " ", count: 10_000)))
            let error = await #expect(throws: ChappieGenerationError.self) { try await client.send("x", generating: Recipe.self) }
            guard case .undecodableReply(let reason, let raw) = error else { Issue.record("\(String(describing: error))"); return }
            #expect(reason.contains("course"))
            #expect(!raw.contains("eyJzdWIiOiIxIn0"))
            #expect(raw.hasSuffix("bytes]"))
            #expect(raw.utf8.count <= ChappieGenerationError.maximumRawTextBytes + 40)
            await emulator.enqueue(.text("Sure! Here is your recipe."))
            let prose = await #expect(throws: ChappieGenerationError.self) { try await client.send("x", generating: Recipe.self) }
            guard case .undecodableReply(let proseReason, _) = prose else { Issue.record("\(String(describing: prose))"); return }
            #expect(proseReason.hasPrefix("not JSON"))
        }
    }

    @Test("stream(_:generating:) yields growing partial snapshots, then the decoded value")
    func streamGenerating() async throws {
        try await withSignedInClient { emulator, client, _ in
            // given: a reply streamed in many small deltas
            await emulator.enqueue(.text(#"{"title":"Sticky toffee","course":"dessert","servings":4,"rating":4.5,"vegetarian":true,"#
                + #""ingredients":["dates","butter"],"steps":[{"text":"Bake","minutes":30}],"wine":null,"garnish":null}"#))
            var titles: [String] = []
            var final: Recipe?
            // when
            for try await event in client.stream("pudding", generating: Recipe.self) {
                switch event {
                case .partial(let snapshot):
                    if let title = snapshot.json?["title"]?.stringValue { titles.append(title) }
                case .completed(let recipe, let response):
                    final = recipe
                    #expect(response.outputText.hasPrefix("{"))
                case .event: break
                }
            }
            // then
            let recipe = try #require(final)
            #expect(recipe.title == "Sticky toffee")
            #expect(recipe.course == .dessert)
            #expect(titles.count > 1)
            #expect(titles.first.map { "Sticky toffee".hasPrefix($0) } == true)
            #expect(titles.last == "Sticky toffee")
        }
    }

    @Test("a typed stream cut in the middle of the JSON ends with the stream's error, after partial snapshots")
    func streamCut() async throws {
        try await withSignedInClient { emulator, client, _ in
            await emulator.enqueue(.cut(.text(#"{"title":"Never finished","course":"main"}"#), afterEvents: 8, ending: .close))
            var partials = 0
            let error = await #expect(throws: ChappieClientError.self) {
                for try await event in client.stream("x", generating: Recipe.self) {
                    if case .partial = event { partials += 1 }
                }
            }
            #expect(error == .streamEndedBeforeCompletion)
            #expect(partials > 0)
        }
    }
}
