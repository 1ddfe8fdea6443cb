import Foundation
import Testing
@testable import ChappieCore

@Suite("Public API request body")
struct PublicAPIRequestBodyTests {
    /// Everything the public API refuses, set on a body as if an upstream change had added it.
    private static let refused: [String: ChappieJSONValue] = [
        "background": true, "conversation": "conv_1", "max_output_tokens": 10, "max_tool_calls": 1, "metadata": ["a": "b"],
        "moderation": "auto", "multi_agent": true, "prompt": ["id": "p"], "prompt_cache_retention": "24h", "safety_identifier": "x",
        "temperature": 0.2, "top_logprobs": 2, "top_p": 0.9, "truncation": "auto", "user": "u", "previous_response_id": "resp_0",
        "service_tier": "priority", "client_metadata": ["x": "y"], "generate": false,
    ]

    @Test("only allowlisted fields go out, store:false and stream:true always, whatever the source body holds")
    func allowlist() throws {
        var source = ResponsesRequestBody(model: "gpt-6-sol", instructions: "Be kind", input: [], tools: [], reasoningEffort: "low",
                                          promptCacheKey: "thread").json.objectValue ?? [:]
        source.merge(Self.refused) { _, new in new }
        source["store"] = true
        source["stream"] = false
        let body = try #require(PublicAPIRequestBody.make(from: .object(source)).objectValue)
        #expect(Set(body.keys).isSubset(of: PublicAPIRequestBody.allowedFields))
        #expect(Set(body.keys).isDisjoint(with: Self.refused.keys))
        #expect(body["store"] == false)
        #expect(body["stream"] == true)
        #expect(body["input"]?.arrayValue == [])
        #expect(body["reasoning"]?["effort"] == "low")
        // No tools: no tool fields at all.
        #expect(body["tools"] == nil && body["tool_choice"] == nil && body["parallel_tool_calls"] == nil)
    }

    @Test("a non-array input becomes an array; system items become developer; compaction items are left out")
    func inputItems() throws {
        let source: ChappieJSONValue = [
            "model": "m", "input": "not a list",
        ]
        #expect(PublicAPIRequestBody.make(from: source)["input"]?.arrayValue == [])
        let items: ChappieJSONValue = [
            "model": "m",
            "input": [
                ["type": "message", "role": "system", "content": [["type": "input_text", "text": "s"]]],
                ["type": "compaction", "encrypted_content": "opaque"],
                ["type": "function_call", "call_id": "c", "name": "t", "arguments": "{}"],
                ["type": "function_call", "call_id": "d", "name": "u", "arguments": "{}", "namespace": "other"],
            ],
        ]
        let input = try #require(PublicAPIRequestBody.make(from: items)["input"]?.arrayValue)
        #expect(input.count == 3)
        #expect(input[0]["role"] == "developer")
        #expect(input[1]["namespace"] == "app")
        #expect(input[2]["namespace"] == "other")
    }

    @Test("flat function tools are grouped in one namespace tool")
    func namespaceTool() throws {
        let tool = ChappieHarnessTool(name: "get_time", description: "Time", inputSchema: ["type": "object"])
        let source = ResponsesRequestBody(model: "m", instructions: "i", input: [], tools: [tool], reasoningEffort: nil, promptCacheKey: "k").json
        let tools = try #require(PublicAPIRequestBody.make(from: source)["tools"]?.arrayValue)
        #expect(tools.count == 1)
        #expect(tools[0]["type"] == "namespace")
        #expect(tools[0]["name"] == .string(PublicAPIRequestBody.namespace))
        #expect(tools[0]["tools"]?.arrayValue?.first?["name"] == "get_time")
        #expect(tools[0]["tools"]?.arrayValue?.first?["type"] == "function")
    }

    @Test("an optional field the server refused is left out; a required one never is", arguments: [
        ("reasoning.effort", "reasoning", true), ("prompt_cache_key", "prompt_cache_key", true), ("model", "model", false),
        ("input[0].content", "input", false),
    ])
    func omitting(param: String, field: String, dropped: Bool) async throws {
        let state = StreamingTransportState()
        await state.refuse(param: param)
        let source = ResponsesRequestBody(model: "m", instructions: "i", input: [], tools: [], reasoningEffort: "low", promptCacheKey: "k").json
        let body = PublicAPIRequestBody.make(from: source, omitting: await state.refusedFields)
        #expect((body[field] == nil) == dropped)
        #expect(PublicAPIRequestBody.topLevelField(of: param) == field)
    }
}
