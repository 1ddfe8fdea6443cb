import Foundation
import Testing
@testable import ChappieCore

struct Recipe: ChappieGenerable, Equatable {
    enum Course: String, CaseIterable, ChappieGenerable { case starter, main, dessert }
    struct Step: Decodable, Equatable {
        var text: String
        var minutes: Int
    }

    var title: String
    var course: Course
    var servings: Int
    var rating: Double
    var vegetarian: Bool
    var ingredients: [String]
    var steps: [Step]
    var wine: String?
    var garnish: Step?
}

private enum Level: Int, Decodable { case low = 1, high = 2 }

private struct WithIntEnum: ChappieGenerable {
    var level: Level
}

private struct WithDictionary: ChappieGenerable {
    var counts: [String: Int]
}

private struct WithDate: ChappieGenerable {
    var when: Date
}

private final class Node: ChappieGenerable {
    let children: [Node]
}

private enum Mood: String, Decodable { case happy, sad }

private struct WithPlainEnum: ChappieGenerable {
    var mood: Mood
}

@Suite("Schema derivation")
struct SchemaDerivationTests {
    @Test("an Int-backed enum gets a reason that names the type and the way out, not a DecodingError dump")
    func intEnum() {
        let reason = WithIntEnum.generationSchema.invalidReason ?? ""
        #expect(reason.contains("Level") && reason.contains("String-backed CaseIterable enum"), "\(reason)")
        #expect(!reason.contains("DecodingError"))
    }

    @Test("a plain struct derives a strict schema: every property required, optionals nullable, no extra properties")
    func derivesStrictSchema() throws {
        // when
        let schema = Recipe.generationSchema
        // then
        #expect(schema.invalidReason == nil)
        let json = schema.jsonSchema
        #expect(json["type"] == "object")
        #expect(json["additionalProperties"] == false)
        #expect(json["required"] == ["title", "course", "servings", "rating", "vegetarian", "ingredients", "steps", "wine", "garnish"])
        let properties = try #require(json["properties"])
        #expect(properties["title"] == ["type": "string"])
        #expect(properties["course"] == ["type": "string", "enum": ["starter", "main", "dessert"]])
        #expect(properties["servings"] == ["type": "integer"])
        #expect(properties["rating"] == ["type": "number"])
        #expect(properties["vegetarian"] == ["type": "boolean"])
        #expect(properties["ingredients"] == ["type": "array", "items": ["type": "string"]])
        #expect(properties["wine"] == ["type": ["string", "null"]])
        let step: ChappieJSONValue = ["type": "object", "properties": ["text": ["type": "string"], "minutes": ["type": "integer"]],
                                      "required": ["text", "minutes"], "additionalProperties": false]
        #expect(properties["steps"] == ["type": "array", "items": step])
        #expect(properties["garnish"] == ["anyOf": [step, ["type": "null"]]])
    }

    @Test("a type the strict schema cannot describe reports why", arguments: [
        (WithDictionary.generationSchema, "dictionaries"),
        (WithDate.generationSchema, "Date"),
        (Node.generationSchema, "recursive"),
        (WithPlainEnum.generationSchema, "Mood"),
    ])
    func invalidTypes(schema: ChappieGenerationSchema, mention: String) throws {
        let reason = try #require(schema.invalidReason)
        #expect(reason.contains(mention))
    }

    @Test("the builder meets strict mode's rules by construction and keeps descriptions")
    func builder() {
        // given
        let schema = ChappieGenerationSchema.object([
            .init("name", .string(), description: "Who"),
            .init("age", .optional(.integer())),
            .init("tags", .array(of: .string(oneOf: ["a", "b"]))),
        ], description: "A person")
        // then
        let json = schema.jsonSchema
        #expect(json["description"] == "A person")
        #expect(json["required"] == ["name", "age", "tags"])
        #expect(json["additionalProperties"] == false)
        #expect(json["properties"]?["name"] == ["type": "string", "description": "Who"])
        #expect(json["properties"]?["age"] == ["type": ["integer", "null"]])
    }

    @Test("the format's name keeps only the characters the backend accepts")
    func names() {
        #expect(Recipe.generationName == "Recipe")
        #expect([Recipe].generationName == "Array")
        #expect(SchemaDerivation.name(of: Recipe.Course.self) == "Course")
    }
}
