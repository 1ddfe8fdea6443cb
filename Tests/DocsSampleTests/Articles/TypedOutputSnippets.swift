import ChappieSDK
import ChappieSDKTesting
import Foundation
import Testing

// The code of the DocC articles "Typed output" and "Typed tools" (Sources/ChappieSDK/ChappieSDK.docc),
// compiled and run here; CatalogSnippetTests checks that each of the articles' blocks appears here.

struct Recipe: ChappieGenerable {
    enum Course: String, CaseIterable, ChappieGenerable { case starter, main, dessert }
    struct Step: Decodable {
        var text: String
        var minutes: Int
    }
    var title: String
    var course: Course
    var ingredients: [String]
    var steps: [Step]
    var wine: String?
}

func recipe(client: ChappieClient) async throws -> Recipe {
    try await client.send("A quick pudding for four", generating: Recipe.self)
}

struct Headline: ChappieGenerable {
    var text: String
    var tone: String
    static var generationSchema: ChappieGenerationSchema {
        .object([
            .init("text", .string(), description: "At most ten words"),
            .init("tone", .string(oneOf: ["neutral", "playful", "urgent"])),
        ])
    }
}

func streamRecipe(client: ChappieClient) async throws -> Recipe? {
    for try await event in client.stream("A quick pudding for four", generating: Recipe.self) {
        switch event {
        case .partial(let snapshot):
            if let title = snapshot.json?["title"]?.stringValue { print("title so far:", title) }
        case .event:
            break
        case .completed(let recipe, _):
            return recipe
        }
    }
    return nil
}

func recipeOrExplanation(client: ChappieClient) async -> String {
    do {
        return try await client.send("A quick pudding", generating: Recipe.self).title
    } catch let error as ChappieGenerationError {
        return error.localizedDescription
    } catch {
        return "The request failed: \(error.localizedDescription)"
    }
}

struct WeatherTool: ChappieTypedTool {
    struct Arguments: ChappieGenerable {
        enum Unit: String, CaseIterable, ChappieGenerable { case celsius, fahrenheit }
        var city: String
        var unit: Unit?
    }
    let name = "get_weather"
    let description = "The current weather in a city."
    func call(arguments: Arguments) async throws -> String {
        "18 degrees and sunny in \(arguments.city)"
    }
}

func askAboutWeather() async throws -> String {
    let client = Chappie.client(tools: [try ChappieHostTool(WeatherTool())])
    return try await client.send("What's the weather in Lyon?")
}

@Suite("DocC articles: Typed output and typed tools")
struct TypedOutputSnippetTests {
    @Test("send(_:generating:) returns a Recipe from the emulator's schema-following reply")
    func sendRecipe() async throws {
        try await DocsEnvironment.run { _ in
            let value = try await recipe(client: Chappie.client())
            #expect(value.title == "A quick pudding for four")
            #expect(value.course == .starter)
        }
    }

    @Test("a written schema sends its descriptions and choices")
    func headline() async throws {
        try await DocsEnvironment.run { _ in
            let headline = try await Chappie.client().send("news", generating: Headline.self)
            #expect(headline.tone == "neutral")
            #expect(Headline.generationSchema.jsonSchema["properties"]?["text"]?["description"] == "At most ten words")
        }
    }

    @Test("stream(_:generating:) prints growing titles and returns the recipe")
    func stream() async throws {
        try await DocsEnvironment.run { docs in
            await docs.emulator.scriptReplies(.text(#"{"title":"Sticky toffee pudding","course":"dessert","ingredients":["dates"],"steps":[],"wine":null}"#))
            let value = try await streamRecipe(client: Chappie.client())
            #expect(value?.course == .dessert)
            #expect(docs.output.text.contains("title so far: Sticky toffee pudding\n"))
        }
    }

    @Test("a reply that is not the type's JSON ends in a ChappieGenerationError")
    func explanation() async throws {
        try await DocsEnvironment.run { docs in
            await docs.emulator.scriptReplies(.text("Here is a recipe: mix and bake."))
            let text = await recipeOrExplanation(client: Chappie.client())
            #expect(text.hasPrefix("The reply does not decode as the requested type"))
        }
    }

    @Test("the typed tool is called with the model's decoded arguments")
    func weather() async throws {
        try await DocsEnvironment.run { docs in
            await docs.emulator.scriptReplies(.functionCall(name: "get_weather", arguments: #"{"city":"Lyon","unit":null}"#))
            let reply = try await askAboutWeather()
            #expect(reply.contains("18 degrees and sunny in Lyon"))
        }
    }
}

// The code of the DocC article "Reasoning" (ReasoningOptions.md).

func thinkHard(client: ChappieClient) async throws -> String {
    let options = ChappieMessageOptions(effort: .high, reasoningSummary: .auto, verbosity: .low)
    var answer = ""
    for try await event in client.stream(.user("Plan a three-day trip to Lyon", options: options)) {
        switch event {
        case .reasoningSummaryDelta(let summary): print("thinking:", summary)
        case .textDelta(let text): answer += text
        default: break
        }
    }
    return answer
}

@Suite("DocC articles: Reasoning")
struct ReasoningSnippetTests {
    @Test("a reasoning summary on request is printed while the answer streams")
    func summary() async throws {
        try await DocsEnvironment.run { docs in
            let answer = try await thinkHard(client: Chappie.client())
            #expect(answer.contains("Plan a three-day trip to Lyon"))
            #expect(docs.output.text.hasPrefix("thinking:"))
        }
    }
}
