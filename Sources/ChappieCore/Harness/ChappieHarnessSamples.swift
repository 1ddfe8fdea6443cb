/// Ready-made harnesses for common app surfaces, to start from or to use in demos.
public enum ChappieHarnessSamples {
    /// A stock-keeping assistant with a `lookup_stock` tool.
    public static let inventory = ChappieHarness(
        name: "Inventory Assistant",
        summary: "Answers questions about stock levels in the app's inventory.",
        capabilities: ["look up stock for a SKU", "explain stock levels", "multi-turn transcript"],
        tools: [ChappieHarnessTool(
            name: "lookup_stock", description: "Returns the units in stock for a SKU.",
            inputSchema: ["type": "object", "properties": ["sku": ["type": "string", "description": "The SKU, e.g. A1"]],
                          "required": ["sku"], "additionalProperties": false])])

    /// A note-taking assistant that can search the user's notes.
    public static let notes = ChappieHarness(
        name: "Notes Assistant",
        summary: "Helps the user find and summarise their notes.",
        capabilities: ["search notes", "summarise notes", "multi-turn transcript"],
        tools: [ChappieHarnessTool(
            name: "search_notes", description: "Finds notes whose text contains a query.",
            inputSchema: ["type": "object", "properties": ["query": ["type": "string"]], "required": ["query"]])])

    /// A customer-support assistant with an order-status tool.
    public static let support = ChappieHarness(
        name: "Support Assistant",
        summary: "Answers order questions for the app's customers.",
        capabilities: ["look up order status", "explain return policy", "multi-turn transcript"],
        tools: [ChappieHarnessTool(
            name: "order_status", description: "Returns the status of an order by its number.",
            inputSchema: ["type": "object", "properties": ["order_number": ["type": "string"]], "required": ["order_number"]])])

    /// A plain chat surface with no tools.
    public static let chat = ChappieHarness(
        name: "Chat",
        summary: "A general conversation inside the app.",
        capabilities: ["multi-turn transcript", "streaming responses"])

    /// Every sample.
    public static let all: [ChappieHarness] = [inventory, notes, support, chat]
}
