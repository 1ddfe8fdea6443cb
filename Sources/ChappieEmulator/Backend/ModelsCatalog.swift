/// The model catalog served by `GET /backend-api/codex/models` (PROTOCOL §8): the entries of the
/// 2026-04-25 bundled catalog plus the newer `gpt-5.6-sol` entry, each with every field Codex
/// requires (`slug`, `display_name`, `supported_reasoning_levels`, `shell_type`, `visibility`,
/// `supported_in_api`, `priority`, `base_instructions`, `supports_reasoning_summaries`,
/// `support_verbosity`, `truncation_policy`, `supports_parallel_tool_calls`,
/// `experimental_supported_tools`) and the optional ones the real server sends. `gpt-5.6-sol`
/// supports the search tool; `codex-auto-review` takes text only.
enum ModelsCatalog {
    /// One catalog row; the rest of the fields are derived in ``json``.
    struct Model: Sendable {
        var slug: String
        var displayName: String
        var description: String
        var priority: Int
        var visibility: String
        var contextWindow: Int
        var maxContextWindow: Int
        var defaultEffort: String
        var efforts: [String]
        var minimalClientVersion: String
        var plans: [String]
        var speedTiers: [String] = []
        var truncationMode = "tokens"
        var defaultSummary = "none"
        var defaultVerbosity = "low"
        var upgrade: String?
        var preferWebsockets = false
        var newerFields = false
        /// `supports_search_tool`: whether the hosted web search tool may be offered.
        var searchTool = false
        /// Whether `input_modalities` lists `image` (else text only).
        var imageInput = true
    }

    /// Every model, ordered by priority.
    static let models: [Model] = [
        Model(
            slug: "gpt-5.5", displayName: "GPT-5.5", description: "Frontier model for everyday coding and agentic work.",
            priority: 0, visibility: "list", contextWindow: 272_000, maxContextWindow: 272_000, defaultEffort: "medium",
            efforts: ["low", "medium", "high", "xhigh"], minimalClientVersion: "0.124.0",
            plans: Wire.allPlans, speedTiers: ["fast"]
        ),
        Model(
            slug: "gpt-5.6-sol", displayName: "GPT-5.6-Sol", description: "Newest frontier model with a larger context window.",
            priority: 1, visibility: "list", contextWindow: 372_000, maxContextWindow: 372_000, defaultEffort: "low",
            efforts: ["low", "medium", "high", "xhigh", "max", "ultra"], minimalClientVersion: "0.142.2",
            plans: Wire.paidPlans, preferWebsockets: true, newerFields: true, searchTool: true
        ),
        Model(
            slug: "gpt-5.4", displayName: "gpt-5.4", description: "Strong model for long, complex tasks.",
            priority: 2, visibility: "list", contextWindow: 272_000, maxContextWindow: 1_000_000, defaultEffort: "xhigh",
            efforts: ["low", "medium", "high", "xhigh"], minimalClientVersion: "0.98.0",
            plans: Wire.paidPlans, speedTiers: ["fast"]
        ),
        Model(
            slug: "gpt-5.4-mini", displayName: "GPT-5.4-Mini", description: "Smaller, faster model for quick tasks.",
            priority: 4, visibility: "list", contextWindow: 272_000, maxContextWindow: 272_000, defaultEffort: "medium",
            efforts: ["low", "medium", "high", "xhigh"], minimalClientVersion: "0.98.0",
            plans: Wire.allPlans, defaultVerbosity: "medium"
        ),
        Model(
            slug: "gpt-5.3-codex", displayName: "gpt-5.3-codex", description: "Coding-tuned model.",
            priority: 6, visibility: "list", contextWindow: 272_000, maxContextWindow: 272_000, defaultEffort: "medium",
            efforts: ["low", "medium", "high", "xhigh"], minimalClientVersion: "0.98.0",
            plans: Wire.paidPlans, upgrade: "gpt-5.4"
        ),
        Model(
            slug: "gpt-5.2", displayName: "gpt-5.2", description: "Previous-generation general model.",
            priority: 10, visibility: "list", contextWindow: 272_000, maxContextWindow: 272_000, defaultEffort: "medium",
            efforts: ["low", "medium", "high", "xhigh"], minimalClientVersion: "0.60.0",
            plans: Wire.paidPlans, truncationMode: "bytes", defaultSummary: "auto", upgrade: "gpt-5.4"
        ),
        Model(
            slug: "codex-auto-review", displayName: "Codex Auto Review", description: "Internal review model.",
            priority: 29, visibility: "hide", contextWindow: 272_000, maxContextWindow: 1_000_000, defaultEffort: "medium",
            efforts: ["low", "medium", "high", "xhigh"], minimalClientVersion: "0.98.0", plans: Wire.paidPlans, imageInput: false
        ),
    ]

    /// The slugs in catalog order.
    static var slugs: [String] { models.map(\.slug) }

    /// The `ETag` of the catalog (also sent as `x-models-etag` on responses).
    static let etag: String = {
        let digest = SHA256.digest(Array(JSONValue.array(models.map(json)).data))
        return "W/\"" + digest.prefix(8).map { String($0, radix: 16) }.joined() + "\""
    }()

    /// The `{"models":[…]}` body for a client of version `clientVersion` (`major.minor.patch`);
    /// models whose `minimal_client_version` is newer are left out, nil keeps all.
    static func body(clientVersion: String?) -> JSONValue {
        let visible = models.filter { model in
            guard let clientVersion else { return true }
            return !isOlder(clientVersion, than: model.minimalClientVersion)
        }
        return ["models": .array(visible.map(json))]
    }

    /// Whether dotted version `version` is older than `minimum` (numeric, component-wise; a
    /// pre-release suffix is ignored).
    static func isOlder(_ version: String, than minimum: String) -> Bool {
        func parts(_ text: String) -> [Int] {
            text.split(separator: "-").first.map { $0.split(separator: ".").map { Int($0) ?? 0 } } ?? []
        }
        let lhs = parts(version), rhs = parts(minimum)
        for index in 0..<max(lhs.count, rhs.count) {
            let a = index < lhs.count ? lhs[index] : 0, b = index < rhs.count ? rhs[index] : 0
            if a != b { return a < b }
        }
        return false
    }

    /// The full ModelInfo JSON object of `model`.
    static func json(_ model: Model) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("slug", .string(model.slug)),
            ("display_name", .string(model.displayName)),
            ("description", .string(model.description)),
            ("default_reasoning_level", .string(model.defaultEffort)),
            ("supported_reasoning_levels", .array(model.efforts.map { effort in
                ["effort": .string(effort), "description": .string(Wire.effortDescription(effort))]
            })),
            ("shell_type", "shell_command"),
            ("visibility", .string(model.visibility)),
            ("minimal_client_version", .string(model.minimalClientVersion)),
            ("supported_in_api", true),
            ("priority", .int(model.priority)),
            ("additional_speed_tiers", .array(model.speedTiers.map(JSONValue.string))),
            ("availability_nux", .null),
            ("upgrade", model.upgrade.map { target in
                ["model": .string(target), "migration_markdown": .string("Try \(target) for better results.")]
            } ?? .null),
            ("base_instructions", .string(Wire.baseInstructions)),
            ("supports_reasoning_summaries", true),
            ("default_reasoning_summary", .string(model.defaultSummary)),
            ("reasoning_summary_format", "experimental"),
            ("support_verbosity", true),
            ("default_verbosity", .string(model.defaultVerbosity)),
            ("apply_patch_tool_type", "freeform"),
            ("web_search_tool_type", "text_and_image"),
            ("truncation_policy", ["mode": .string(model.truncationMode), "limit": 10_000]),
            ("supports_parallel_tool_calls", true),
            ("supports_image_detail_original", true),
            ("context_window", .int(model.contextWindow)),
            ("max_context_window", .int(model.maxContextWindow)),
            ("auto_compact_token_limit", .null),
            ("effective_context_window_percent", 95),
            ("experimental_supported_tools", []),
            ("input_modalities", model.imageInput ? ["text", "image"] : ["text"]),
            ("supports_search_tool", .bool(model.searchTool)),
            ("available_in_plans", .array(model.plans.map(JSONValue.string))),
            ("prefer_websockets", .bool(model.preferWebsockets)),
        ]
        if model.newerFields {
            members += [
                ("tool_mode", "code_mode_only"),
                ("multi_agent_version", "v2"),
                ("use_responses_lite", false),
                ("include_skills_usage_instructions", true),
                ("auto_review_model_override", .null),
                ("comp_hash", .string(String(model.slug.utf8.reduce(5381) { ($0 &* 33) &+ Int($1) } & 0xFFFF_FFFF, radix: 16))),
            ]
        }
        return .object(members)
    }

    private enum Wire {
        static let allPlans = [
            "free", "go", "plus", "pro", "prolite", "team", "self_serve_business_usage_based", "business",
            "enterprise_cbp_usage_based", "enterprise", "edu", "finserv",
        ]
        static let paidPlans = Array(allPlans.dropFirst())
        static let baseInstructions = """
            You are a coding agent answering from the Chappie emulator, a local test double of the Codex \
            backend. Answers are scripted and deterministic; they do not come from a real model.
            """
        static func effortDescription(_ effort: String) -> String {
            switch effort {
            case "low": "Fast answers with light reasoning"
            case "medium": "Balanced speed and reasoning depth"
            case "high": "Deeper reasoning for harder problems"
            case "xhigh": "Extra-deep reasoning for the hardest problems"
            default: "Extended reasoning (\(effort))"
            }
        }
    }
}
