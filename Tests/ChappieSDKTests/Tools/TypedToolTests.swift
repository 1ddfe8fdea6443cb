import ChappieEmulator
@testable import ChappieCore
import ChappieSDKTesting
@testable import ChappieTransport
import Foundation
import Testing

private struct WeatherTool: ChappieTypedTool {
    struct Arguments: ChappieGenerable {
        enum Unit: String, CaseIterable, ChappieGenerable { case celsius, fahrenheit }
        var city: String
        var unit: Unit?
    }

    let name = "get_weather"
    let description = "The current weather in a city."
    let calls = LockedBox<[Arguments]>([])

    func call(arguments: Arguments) async throws -> String {
        calls.withLock { $0.append(arguments) }
        return "18 degrees in \(arguments.city)"
    }
}

private struct ListTool: ChappieTypedTool {
    let name = "list"
    let description = "Takes a bare array."
    func call(arguments: [String]) async throws -> String { "" }
}

@Suite("Typed tools")
struct TypedToolTests {
    @Test("a typed tool is declared strict with its derived schema and called with decoded arguments")
    func typedTool() async throws {
        let tool = WeatherTool()
        try await withSignedInClient(tools: [try ChappieHostTool(tool)]) { emulator, client, _ in
            // when
            let reply = try await client.send(#"use tool get_weather {"city":"Lyon","unit":"celsius"}"#)
            // then
            #expect(reply.contains("18 degrees in Lyon"))
            #expect(tool.calls.withLock { $0.map(\.city) } == ["Lyon"])
            #expect(tool.calls.withLock { $0.first?.unit } == .celsius)
            let first = try json(try #require(await responseRequests(emulator).first))
            let spec = try #require(first["tools"]?.arrayValue?.first { $0["name"] == "get_weather" })
            #expect(spec["strict"] == true)
            #expect(spec["parameters"] == WeatherTool.Arguments.generationSchema.jsonSchema)
            #expect(spec["parameters"]?["required"] == ["city", "unit"])
        }
    }

    @Test("arguments that do not match the schema go back to the model as the tool's error output; the tool is not called")
    func mismatchedArguments() async throws {
        let tool = WeatherTool()
        try await withSignedInClient(tools: [try ChappieHostTool(tool)]) { emulator, client, _ in
            // when: the model sends a number for the city and an unknown unit
            var completed: ChappieToolExecutionResult?
            for try await event in client.stream(#"use tool get_weather {"city":42,"unit":"kelvin"}"#) {
                if case .toolCallCompleted(let result) = event { completed = result }
            }
            // then
            let result = try #require(completed)
            #expect(result.status == .failed)
            #expect(result.output.contains("city"))
            #expect(result.output.contains("do not match the tool's schema"))
            #expect(tool.calls.withLock { $0.isEmpty })
            let input = try await lastInput(emulator)
            let output = try #require(input.last { $0["type"] == "function_call_output" })
            #expect(output["output"]?.stringValue?.contains("do not match") == true)
        }
    }

    @Test("a plain host tool is still declared with strict false")
    func hostToolStaysLoose() async throws {
        let plain = ChappieHostTool(name: "echo", description: "Echoes") { call in ChappieToolResult(output: call.rawArguments) }
        try await withSignedInClient(tools: [plain]) { emulator, client, _ in
            _ = try await client.send("hi")
            let spec = try json(try await lastResponseRequest(emulator))["tools"]?.arrayValue?.first { $0["name"] == "echo" }
            #expect(spec?["strict"] == false)
        }
    }

    @Test("a tool whose arguments are not an object is refused when it is made")
    func nonObjectArguments() {
        #expect(throws: ChappieGenerationError.invalidSchema("a tool's arguments must be an object")) { try ChappieHostTool(ListTool()) }
    }
}

@Suite("Strict tool schemas")
struct StrictToolSchemaTests {
    @Test("the emulator refuses a host tool declared strict with a schema that breaks strict mode")
    func strictLooseSchemaRefused() async throws {
        var loose = ChappieHostTool(name: "loose", description: "Loose schema",
                                    inputSchema: ["type": "object", "properties": ["a": ["type": "string"]]]) { _ in ChappieToolResult(output: "") }
        loose.strict = true
        try await withSignedInClient(tools: [loose]) { _, client, _ in
            let error = await #expect(throws: ChappieClientError.self) { try await client.send("hi") }
            guard case .invalidRequest(let message) = error else { Issue.record("\(String(describing: error))"); return }
            #expect(message.contains("additionalProperties"))
        }
    }
}
