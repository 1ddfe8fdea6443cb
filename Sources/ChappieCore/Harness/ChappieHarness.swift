/// What the model is told about the app it lives in: a name, a summary, instructions, the
/// capabilities it may claim, and the tools and plugins the app declares.
///
/// The harness is sent with every request: its `instructions` become the request's
/// `instructions`, and a developer message describing the surface is the first input item.
public struct ChappieHarness: Sendable, Hashable, Codable {
    /// Display name of the surface, e.g. "Chappie iOS Harness".
    public var name: String
    /// One-line description of the surface.
    public var summary: String
    /// System-level instructions sent with every request.
    public var instructions: String
    /// Plain-English capabilities; the model may only claim these.
    public var capabilities: [String]
    /// Model-facing tool declarations.
    public var tools: [ChappieHarnessTool]
    /// Declared plugins.
    public var plugins: [ChappieHarnessPlugin]

    /// Creates a harness.
    public init(
        name: String = "Chappie iOS Harness",
        summary: String = "",
        instructions: String = ChappieHarness.defaultInstructions,
        capabilities: [String] = [],
        tools: [ChappieHarnessTool] = [],
        plugins: [ChappieHarnessPlugin] = []
    ) {
        self.name = name
        self.summary = summary
        self.instructions = instructions
        self.capabilities = capabilities
        self.tools = tools
        self.plugins = plugins
    }

    /// Chappie's guardrail: stay within the host app, claim only declared capabilities and tools,
    /// and never present itself as a Codex product.
    public static let defaultInstructions = """
        You are the assistant built into the host app described in the first developer message. \
        Help the user with tasks that fit this app. Only claim the capabilities and tools listed \
        for this surface; if asked for something outside them, say plainly that you cannot do it \
        here. You are not Codex, the Codex CLI, the Codex desktop app or any other Codex product, \
        and you must never present yourself as one. Do not claim to read files, run commands, \
        browse the web or take actions unless a declared tool does exactly that.
        """

    /// The guardrail instructions plus the four default capabilities, no tools or plugins.
    public static let `default` = ChappieHarness(
        name: "Chappie iOS Harness",
        summary: "A ChatGPT assistant embedded in a native app through Chappie.",
        instructions: defaultInstructions,
        capabilities: ["multi-turn transcript", "streaming responses", "model selection", "usage-limit awareness"]
    )

    /// No harness: nothing is injected (for tests). Requests still carry a minimal neutral
    /// `instructions` value because the backend requires that field.
    public static let none = ChappieHarness(name: "", summary: "", instructions: "", capabilities: [])

    /// True when nothing should be injected.
    var isEmpty: Bool {
        name.isEmpty && summary.isEmpty && instructions.isEmpty && capabilities.isEmpty && tools.isEmpty && plugins.isEmpty
    }
}

/// A tool the model may call, declared with a JSON Schema for its arguments.
public struct ChappieHarnessTool: Sendable, Hashable, Codable {
    /// The function name the model calls (matched to a host tool by name).
    public var name: String
    /// What the tool does, for the model.
    public var description: String
    /// JSON Schema of the arguments object.
    public var inputSchema: ChappieJSONValue

    /// Creates a tool declaration.
    public init(name: String, description: String, inputSchema: ChappieJSONValue) {
        self.name = name
        self.description = description
        self.inputSchema = inputSchema
    }
}

/// A plugin the app declares to the model.
public struct ChappieHarnessPlugin: Sendable, Hashable, Codable {
    /// Plugin name.
    public var name: String
    /// What it offers.
    public var description: String
    /// Optional semantic version.
    public var version: String?

    /// Creates a plugin declaration.
    public init(name: String, description: String, version: String? = nil) {
        self.name = name
        self.description = description
        self.version = version
    }
}
