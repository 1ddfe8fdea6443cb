import ChappieSDK
import ChappieSDKTesting
import Testing

// Samples of https://docs.chappiesdk.com/guides/host-tools, https://docs.chappiesdk.com/guides/plugins
// and https://docs.chappiesdk.com/concepts/harnesses, as published. Lines ending in `// +test` are
// not in the docs; lines with `// docs:` differ from them, saying why.

/// Host tools, "Register a host tool", step 1: declare the tool in the harness.
func hostToolsHarness() -> ChappieHarness {
    let harness = ChappieHarness(
        name: "Inventory Harness",
        summary: "Native iOS surface for inventory questions.",
        capabilities: ["multi-turn transcript"],
        tools: [
            ChappieHarnessTool(
                name: "lookup_item",
                description: "Looks up one inventory item by SKU.",
                inputSchema: .object([
                    "type": .string("object"),
                    "properties": .object([
                        "sku": .object(["type": .string("string")])
                    ]),
                    "required": .array([.string("sku")]),
                    "additionalProperties": .bool(false),
                ])
            )
        ]
    )
    return harness  // +test
}

/// Host tools, "Register a host tool", step 2: register the Swift handler and send.
func hostToolsRegisterAndSend(harness: ChappieHarness) async throws -> String {
    let lookupItem = ChappieHostTool(
        name: "lookup_item",
        description: "Looks up one inventory item by SKU.",
        inputSchema: .object([
            "type": .string("object"),
            "properties": .object([
                "sku": .object(["type": .string("string")])
            ]),
            "required": .array([.string("sku")]),
            "additionalProperties": .bool(false),
        ])
    ) { call in
        // Decode the arguments from the call
        guard case .object(let args) = call.argumentsJSON,
            case .string(let sku) = args["sku"]
        else {
            return ChappieToolResult(output: #"{"error":"missing sku"}"#)
        }
        // Call your own data layer
        let stock = await InventoryStore.shared.stock(for: sku)
        return ChappieToolResult(output: #"{"sku":"\#(sku)","stock":\#(stock)}"#)
    }
    let client = Chappie.client(harness: harness, tools: [lookupItem])
    let reply = try await client.send("Find alternatives for SKU-123.")
    return reply  // +test
}

/// Plugins, "Create and use a plugin manifest".
func pluginsCreateAndUse() async throws -> (ChappiePluginManifest, String) {
    let manifest = ChappiePluginManifest(
        identifier: "com.example.inventory",
        displayName: "Inventory Assistant",
        summary: "Inventory lookup and replenishment helpers.",
        version: "0.1.0",
        harness: ChappieHarnessSamples.inventory
    )

    let client = Chappie.client(harness: manifest.resolvedHarness)
    let reply = try await client.send("How much stock is left for SKU-456?")
    return (manifest, reply)  // +test
}

@Suite("Published docs: Host tools, plugins and harnesses")
struct HostToolSampleTests {
    @Test("the model's lookup_item call reaches the handler, whose output goes back to the model")
    func hostToolRuns() async throws {
        try await DocsEnvironment.run { docs in
            await docs.emulator.scriptToolCall("lookup_item", arguments: ["sku": "SKU-123"])
            await docs.emulator.scriptReplies(.text("SKU-123 has 7 left."))
            let reply = try await hostToolsRegisterAndSend(harness: hostToolsHarness())
            #expect(reply == "SKU-123 has 7 left.")
            let requests = await docs.responsesRequests()
            let declared = requests.first?["tools"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
            #expect(declared == ["lookup_item"])
            // The second request carries the handler's output for the model's call.
            let outputs = requests.last?["input"]?.arrayValue?.filter { $0["type"]?.stringValue == "function_call_output" }
            #expect(outputs?.last?["output"]?.stringValue == #"{"sku":"SKU-123","stock":7}"#)
        }
    }

    @Test("a call without a sku gets the handler's error JSON")
    func hostToolMissingArgument() async throws {
        try await DocsEnvironment.run { docs in
            await docs.emulator.scriptToolCall("lookup_item", arguments: [:])
            await docs.emulator.scriptReplies(.text("Which SKU?"))
            let reply = try await hostToolsRegisterAndSend(harness: hostToolsHarness())
            #expect(reply == "Which SKU?")
            let outputs = await docs.responsesRequests().last?["input"]?.arrayValue?
                .filter { $0["type"]?.stringValue == "function_call_output" }
            #expect(outputs?.last?["output"]?.stringValue == #"{"error":"missing sku"}"#)
        }
    }

    @Test("the stream reports the call by the documented name and arguments, and its completion")
    func toolEvents() async throws {
        try await DocsEnvironment.run { docs in
            let tool = ChappieHostTool(name: "lookup_item", description: "Looks up one inventory item by SKU.") { _ in
                ChappieToolResult(output: "{}")
            }
            await docs.emulator.scriptToolCall("lookup_item", arguments: ["sku": "SKU-9"])
            await docs.emulator.scriptReplies(.text("Done."))
            var requested: [String] = []
            var completed: [ChappieToolExecutionStatus] = []
            for try await event in Chappie.client(tools: [tool]).stream("Look up SKU-9") {
                switch event {
                case .toolCallRequested(let request): requested.append("\(request.name) \(request.arguments) \(request.policy)")
                case .toolCallCompleted(let result): completed.append(result.status)
                default: break
                }
            }
            #expect(requested == [#"lookup_item {"sku":"SKU-9"} automatic"#])
            #expect(completed == [.completed])
        }
    }

    @Test("an .ask tool waits for the approval handler, which reads the documented name and arguments")
    func approval() async throws {
        try await DocsEnvironment.run { docs in
            let tool = ChappieHostTool(name: "delete_item", description: "Deletes an item.", policy: .ask) { _ in
                ChappieToolResult(output: #"{"deleted":true}"#)
            }
            let asked = DocsOutput()
            let client = Chappie.client(tools: [tool], toolApprovalHandler: { request in
                asked.append("\(request.name) \(request.arguments)")
                return .denied()
            })
            await docs.emulator.scriptToolCall("delete_item", arguments: ["sku": "SKU-1"])
            await docs.emulator.scriptReplies(.text("I did not delete it."))
            var statuses: [ChappieToolExecutionStatus] = []
            for try await event in client.stream("Delete SKU-1") {
                if case .toolCallCompleted(let result) = event { statuses.append(result.status) }
            }
            #expect(asked.text == #"delete_item {"sku":"SKU-1"}"#)
            #expect(statuses == [.denied])
            #expect(ChappieApprovalDecision.approved().isApproved)
        }
    }

    @Test("a plugin manifest resolves into a harness; tools dedupe by name (first wins), plugins append")
    func pluginManifest() async throws {
        try await DocsEnvironment.run { docs in
            await docs.emulator.scriptReplies(.text("12 left."))
            let (manifest, reply) = try await pluginsCreateAndUse()
            #expect(reply == "12 left.")
            #expect(manifest.resolvedHarness == ChappieHarnessSamples.inventory)
            var extended = manifest
            let duplicate = ChappieHarnessTool(name: ChappieHarnessSamples.inventory.tools[0].name, description: "other", inputSchema: [:])
            extended.tools = [duplicate, ChappieHarnessTool(name: "restock", description: "Restocks.", inputSchema: [:])]
            extended.plugins = [ChappieHarnessPlugin(name: "a", description: "A"), ChappieHarnessPlugin(name: "a", description: "A")]
            let resolved = extended.resolvedHarness
            #expect(resolved.tools.map(\.name) == ChappieHarnessSamples.inventory.tools.map(\.name) + ["restock"])
            #expect(resolved.tools[0].description == ChappieHarnessSamples.inventory.tools[0].description)
            #expect(resolved.plugins.count == ChappieHarnessSamples.inventory.plugins.count + 2)
        }
    }

    @Test("the default harness has the guardrail and the four capabilities; .none is empty")
    func harnesses() {
        #expect(ChappieHarness.default.name == "Chappie iOS Harness")
        #expect(ChappieHarness.default.instructions == ChappieHarness.defaultInstructions)
        #expect(ChappieHarness.default.capabilities == [
            "multi-turn transcript", "streaming responses", "model selection", "usage-limit awareness",
        ])
        #expect(ChappieHarness.default.tools.isEmpty && ChappieHarness.default.plugins.isEmpty)
        #expect(ChappieHarness.none.name.isEmpty && ChappieHarness.none.instructions.isEmpty)
        #expect(ChappieHarnessSamples.all.count == 4)
    }
}
