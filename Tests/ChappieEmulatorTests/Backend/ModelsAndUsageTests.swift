import ChappieEmulator
import Foundation
import Testing

@Suite("Models catalog and usage (PROTOCOL §7.2, §8)")
struct ModelsAndUsageTests {
    static let required = [
        "slug", "display_name", "supported_reasoning_levels", "shell_type", "visibility", "supported_in_api", "priority",
        "base_instructions", "supports_reasoning_summaries", "support_verbosity", "truncation_policy",
        "supports_parallel_tool_calls", "experimental_supported_tools", "context_window", "input_modalities",
        "default_reasoning_level", "default_verbosity",
    ]

    @Test("The catalog lists every model with all required fields and an ETag")
    func catalog() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            let answer = try await http.get("/backend-api/codex/models?client_version=0.163.0", bearer: tokens.accessToken)
            #expect(answer.status == 200)
            #expect(answer.headers["etag"]?.isEmpty == false)
            let models = try #require(answer.json["models"] as? [[String: Any]])
            let slugs = models.compactMap { $0["slug"] as? String }
            #expect(slugs == ["gpt-5.5", "gpt-5.6-sol", "gpt-5.4", "gpt-5.4-mini", "gpt-5.3-codex", "gpt-5.2", "codex-auto-review"])
            for model in models {
                for field in Self.required { #expect(model[field] != nil, "\(model["slug"] ?? "?") lacks \(field)") }
                let levels = model["supported_reasoning_levels"] as? [[String: Any]] ?? []
                #expect(levels.allSatisfy { $0["effort"] is String && $0["description"] is String })
            }
            let sol = try #require(models.first { $0["slug"] as? String == "gpt-5.6-sol" })
            #expect(sol["context_window"] as? Int == 372_000)
            #expect(sol["minimal_client_version"] as? String == "0.142.2")
            #expect((sol["supported_reasoning_levels"] as? [[String: Any]])?.compactMap { $0["effort"] as? String }
                == ["low", "medium", "high", "xhigh", "max", "ultra"])
            let responses = try await http.postJSON("/backend-api/codex/responses", EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken)
            #expect(responses.headers["x-models-etag"] == answer.headers["etag"])
        }
    }

    @Test("An old client version gets only the models it supports; no token gets 401")
    func versionFilterAndAuth() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            let old = try await http.get("/backend-api/codex/models?client_version=0.125.0", bearer: tokens.accessToken)
            let slugs = (old.json["models"] as? [[String: Any]])?.compactMap { $0["slug"] as? String } ?? []
            #expect(slugs.contains("gpt-5.5") && !slugs.contains("gpt-5.6-sol"))
            let ancient = try await http.get("/backend-api/codex/models?client_version=0.1.0", bearer: tokens.accessToken)
            #expect((ancient.json["models"] as? [Any])?.isEmpty == true)
            let anonymous = try await http.get("/backend-api/codex/models?client_version=0.163.0")
            #expect(anonymous.status == 401 && anonymous.detail == "Unauthorized")
        }
    }

    @Test("Workspace routing discovery lists the account with the emulator's origin and no residency constraint")
    func accountsCheck() async throws {
        try await withEmulator { emulator, http in
            let tokens = await emulator.issueTokens()
            let answer = try await http.get("/backend-api/wham/accounts/check", bearer: tokens.accessToken)
            #expect(answer.status == 200)
            let accounts = try #require(answer.json["accounts"] as? [[String: Any]])
            let account = try #require(accounts.first)
            #expect(accounts.count == 1)
            #expect(account["id"] as? String == emulator.configuration.account.accountID)
            #expect(account["workspace_backend_origin"] as? String == emulator.baseURL.absoluteString)
            #expect(account["account_routing_override"] as? String == "NO_CONSTRAINT")
            #expect(answer.json["default_account_id"] as? String == emulator.configuration.account.accountID)
            #expect(try await http.get("/backend-api/wham/accounts/check").status == 401)
        }
    }

    @Test("Usage reports integer windows that grow with each response")
    func usage() async throws {
        try await withEmulator(.init(usagePercentPerResponse: 5)) { emulator, http in
            let tokens = await emulator.issueTokens()
            let before = try await http.get("/backend-api/wham/usage", bearer: tokens.accessToken)
            #expect(before.status == 200)
            #expect(before.json["plan_type"] as? String == "plus")
            #expect(before.json["email"] as? String == "user@example.com")
            #expect(before.json["account_id"] as? String == emulator.configuration.account.accountID)
            #expect((before.json["additional_rate_limits"] as? [Any])?.isEmpty == true)
            #expect(before.json["rate_limit_reached_type"] is NSNull)
            let limit = try #require(before.json["rate_limit"] as? [String: Any])
            #expect(limit["allowed"] as? Bool == true && limit["limit_reached"] as? Bool == false)
            let primary = try #require(limit["primary_window"] as? [String: Any])
            #expect(primary["used_percent"] as? Int == 0)
            #expect(primary["limit_window_seconds"] as? Int == 18_000)
            #expect(primary["reset_after_seconds"] is Int && primary["reset_at"] is Int)
            #expect((limit["secondary_window"] as? [String: Any])?["limit_window_seconds"] as? Int == 604_800)
            let credits = try #require(before.json["credits"] as? [String: Any])
            #expect(credits["has_credits"] as? Bool == false)
            // when
            _ = try await http.postJSON("/backend-api/codex/responses", EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken)
            _ = try await http.postJSON("/backend-api/codex/responses", EmulatorHTTPClient.responsesBody(), bearer: tokens.accessToken)
            // then
            let after = try await http.get("/backend-api/wham/usage", bearer: tokens.accessToken)
            let afterPrimary = (after.json["rate_limit"] as? [String: Any])?["primary_window"] as? [String: Any]
            #expect(afterPrimary?["used_percent"] as? Int == 10)
            #expect(try await http.get("/backend-api/wham/usage").status == 401)
        }
    }
}
