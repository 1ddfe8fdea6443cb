/// A plugin's description of itself: identity, a base harness, extra tools and plugins, and
/// app-only setup metadata. ``resolvedHarness`` is what the model sees.
public struct ChappiePluginManifest: Sendable, Hashable, Codable {
    /// Reverse-DNS identifier, e.g. `com.example.inventory`.
    public var identifier: String
    /// Name for debug surfaces and logs.
    public var displayName: String
    /// What the plugin does (documentation only; never sent to the model).
    public var summary: String
    /// Semantic version, e.g. `0.1.0`.
    public var version: String?
    /// The base harness.
    public var harness: ChappieHarness
    /// Extra tools merged into the harness (a name already declared is dropped).
    public var tools: [ChappieHarnessTool]
    /// Extra plugins appended to the harness.
    public var plugins: [ChappieHarnessPlugin]
    /// Free-form app settings (endpoints, flags…); never sent to the model.
    public var metadata: [String: ChappieJSONValue]

    /// Creates a manifest.
    public init(identifier: String, displayName: String, summary: String, version: String? = nil, harness: ChappieHarness,
                tools: [ChappieHarnessTool] = [], plugins: [ChappieHarnessPlugin] = [], metadata: [String: ChappieJSONValue] = [:]) {
        self.identifier = identifier
        self.displayName = displayName
        self.summary = summary
        self.version = version
        self.harness = harness
        self.tools = tools
        self.plugins = plugins
        self.metadata = metadata
    }

    /// Decodes a manifest; `tools`, `plugins`, `metadata` and `version` may be absent.
    /// Throws `DecodingError` when a required field is missing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        identifier = try container.decode(String.self, forKey: .identifier)
        displayName = try container.decode(String.self, forKey: .displayName)
        summary = try container.decode(String.self, forKey: .summary)
        version = try container.decodeIfPresent(String.self, forKey: .version)
        harness = try container.decode(ChappieHarness.self, forKey: .harness)
        tools = try container.decodeIfPresent([ChappieHarnessTool].self, forKey: .tools) ?? []
        plugins = try container.decodeIfPresent([ChappieHarnessPlugin].self, forKey: .plugins) ?? []
        metadata = try container.decodeIfPresent([String: ChappieJSONValue].self, forKey: .metadata) ?? [:]
    }

    /// The harness with the manifest's tools merged (de-duplicated by name, first occurrence wins,
    /// so the base harness's tools take precedence) and its plugins appended as they are.
    /// A plain value: later changes to the manifest do not affect it. Metadata is not included.
    public var resolvedHarness: ChappieHarness {
        var resolved = harness
        var seen = Set<String>()
        resolved.tools = (harness.tools + tools).filter { seen.insert($0.name).inserted }
        resolved.plugins = harness.plugins + plugins
        return resolved
    }
}
