import Foundation
import Testing
@testable import ChappieCore

@Suite("Harness and plugin manifests")
struct HarnessTests {
    @Test("resolvedHarness de-duplicates tools by name with the first occurrence winning and appends plugins")
    func manifestMerge() {
        let base = ChappieHarness(name: "base", summary: "s", capabilities: ["c"],
                                  tools: [ChappieHarnessTool(name: "a", description: "base a", inputSchema: ["type": "object"])],
                                  plugins: [ChappieHarnessPlugin(name: "p", description: "one")])
        let manifest = ChappiePluginManifest(
            identifier: "com.example.x", displayName: "X", summary: "docs only", version: "0.1.0", harness: base,
            tools: [ChappieHarnessTool(name: "a", description: "manifest a", inputSchema: [:]),
                    ChappieHarnessTool(name: "b", description: "manifest b", inputSchema: [:])],
            plugins: [ChappieHarnessPlugin(name: "p", description: "two")], metadata: ["endpoint": "https://x"])
        let resolved = manifest.resolvedHarness
        #expect(resolved.tools.map(\.description) == ["base a", "manifest b"])
        #expect(resolved.plugins.map(\.description) == ["one", "two"])
        #expect(!resolved.contextMessage!.text.contains("https://x"))
        #expect(!resolved.contextMessage!.text.contains("docs only"))
    }

    @Test("a manifest decodes without optional fields and round-trips")
    func manifestCodable() throws {
        let json = #"{"identifier":"com.e","displayName":"E","summary":"s","harness":{"name":"n","summary":"s","instructions":"i","capabilities":[],"tools":[],"plugins":[]}}"#
        let manifest = try JSONDecoder().decode(ChappiePluginManifest.self, from: Data(json.utf8))
        #expect(manifest.tools.isEmpty && manifest.metadata.isEmpty && manifest.version == nil)
        let again = try JSONDecoder().decode(ChappiePluginManifest.self, from: JSONEncoder().encode(manifest))
        #expect(again == manifest)
    }

    @Test("the default harness has the guardrail and four capabilities; none injects nothing")
    func defaults() {
        #expect(ChappieHarness.default.capabilities.count == 4)
        #expect(ChappieHarness.defaultInstructions.contains("never present yourself"))
        #expect(ChappieHarness.none.contextMessage == nil)
        #expect(ChappieHarnessSamples.all.count == 4)
        #expect(ChappieHarnessSamples.inventory.tools.map(\.name) == ["lookup_stock"])
    }

    @Test("JSON values round-trip every kind exactly", arguments: [
        #"{"a":[1,2.5,-3,true,false,null,"x"],"b":{"c":"é🌍"},"big":9007199254740993}"#, "[]", "{}", "0", "\"\"", "1e-7",
    ])
    func jsonRoundTrip(text: String) throws {
        let value = try ChappieJSONValue(jsonData: Data(text.utf8))
        let again = try ChappieJSONValue(jsonData: Data(value.jsonString.utf8))
        #expect(again == value)
    }
}
