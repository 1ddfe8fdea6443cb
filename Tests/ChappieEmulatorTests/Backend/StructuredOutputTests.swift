import Foundation
import Testing
@testable import ChappieEmulator

@Suite("Structured outputs (text.format json_schema)")
struct StructuredOutputTests {
    static let schema: JSONValue = [
        "type": "object",
        "properties": [
            "title": ["type": "string"],
            "course": ["type": "string", "enum": ["main", "dessert"]],
            "tags": ["type": "array", "items": ["type": "string"]],
            "note": ["type": ["string", "null"]],
            "step": ["anyOf": [["type": "object", "properties": ["n": ["type": "integer"]], "required": ["n"], "additionalProperties": false],
                               ["type": "null"]]],
        ],
        "required": ["title", "course", "tags", "note", "step"],
        "additionalProperties": false,
    ]

    static func format(_ schema: JSONValue, strict: Bool = true, name: String = "recipe") -> JSONValue {
        ["type": "json_schema", "strict": .bool(strict), "schema": schema, "name": .string(name)]
    }

    @Test("a strict schema is accepted and the sample follows it, in schema order")
    func sample() {
        #expect(StructuredOutput.rejection(of: Self.format(Self.schema)) == nil)
        let value = StructuredOutput.sample(for: Self.schema, seed: "pudding")
        #expect(value.serialized == #"{"title":"pudding","course":"main","tags":["pudding"],"note":"pudding","step":{"n":1}}"#)
    }

    @Test("strict mode's rules are enforced where they are broken", arguments: [
        (JSONValue.object([("type", "object"), ("properties", ["a": ["type": "string"]]), ("required", ["a"])]), "additionalProperties"),
        (JSONValue.object([("type", "object"), ("properties", ["a": ["type": "string"]]), ("required", []), ("additionalProperties", false)]),
         "Missing 'a'"),
        (JSONValue.object([("type", "array"), ("items", ["type": "string"])]), "type: \"object\""),
        (JSONValue.object([("type", "object"), ("properties", ["a": ["type": "object", "properties": [:]]]), ("required", ["a"]),
                           ("additionalProperties", false)]), "In context=('properties', 'a')"),
    ])
    func rejections(schema: JSONValue, mention: String) throws {
        let rejection = try #require(StructuredOutput.rejection(of: Self.format(schema)))
        #expect(rejection.contains(mention))
    }

    @Test("a non-strict format is only checked for an object root; a bad name is refused")
    func nonStrictAndName() {
        let loose: JSONValue = ["type": "object", "properties": ["a": ["type": "string"]]]
        #expect(StructuredOutput.rejection(of: Self.format(loose, strict: false)) == nil)
        #expect(StructuredOutput.rejection(of: Self.format(Self.schema, name: "has space")) != nil)
    }
}
