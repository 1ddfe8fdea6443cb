import ChappieEmulator
@testable import ChappieCore
import ChappieSDKTesting
import ChappieTransport
import Foundation
import Testing

@Suite("Usage limits")
struct UsageLimitTests {
    @Test("rate-limit headers parse both reset forms and the server's True/False booleans")
    func headers() {
        let now = Date(timeIntervalSince1970: 1_000)
        let snapshot = RateLimitHeaders.snapshot(from: [
            "x-codex-primary-used-percent": "12.5", "x-codex-primary-window-minutes": "300", "x-codex-primary-reset-after-seconds": "60",
            "x-codex-secondary-used-percent": "40", "x-codex-secondary-window-minutes": "10080", "x-codex-secondary-reset-at": "5000",
            "x-codex-credits-has-credits": "True", "x-codex-credits-unlimited": "False", "x-codex-credits-balance": "3", "x-codex-plan-type": "pro",
        ], now: now)
        #expect(snapshot?.primary == ChappieUsageWindow(usedPercent: 12.5, windowMinutes: 300, resetsAt: Date(timeIntervalSince1970: 1_060)))
        #expect(snapshot?.secondary?.resetsAt == Date(timeIntervalSince1970: 5_000))
        #expect(snapshot?.credits == ChappieCredits(hasCredits: true, unlimited: false, balance: "3"))
        #expect(snapshot?.plan?.displayName == "Pro")
    }

    @Test("windows are classified by duration, not by the header's label")
    func byDuration() {
        let snapshot = RateLimitHeaders.snapshot(from: [
            "x-codex-primary-used-percent": "70", "x-codex-primary-window-minutes": "10080",
            "x-codex-secondary-used-percent": "5", "x-codex-secondary-window-minutes": "300",
        ])
        #expect(snapshot?.primary?.windowMinutes == 300)
        #expect(snapshot?.secondary?.usedPercent == 70)
    }

    @Test("no rate-limit headers means no snapshot; an all-zero window is not reported")
    func absent() {
        #expect(RateLimitHeaders.snapshot(from: ["content-type": "text/event-stream"]) == nil)
        #expect(RateLimitHeaders.snapshot(from: ["x-codex-primary-used-percent": "0"]) == nil)
    }

    @Test("the usage payload accepts integers or decimals and rounds window seconds up to minutes")
    func payload() throws {
        let json = #"{"plan_type":"plus","rate_limit":{"allowed":true,"limit_reached":false,"primary_window":{"used_percent":12.5,"limit_window_seconds":17940,"reset_after_seconds":10,"reset_at":1700000000},"secondary_window":{"used_percent":3,"limit_window_seconds":604800,"reset_after_seconds":10,"reset_at":1700500000}},"credits":{"has_credits":false,"unlimited":false,"balance":"0"},"brand_new":1}"#
        let snapshot = try UsagePayload.snapshot(from: Data(json.utf8))
        #expect(snapshot.primary?.usedPercent == 12.5)
        #expect(snapshot.primary?.windowMinutes == 299)
        #expect(snapshot.secondary?.windowMinutes == 10080)
        #expect(snapshot.plan == ChappiePlan(rawValue: "plus"))
    }

    @Test("plans keep unknown raw values and name workspace plans", arguments: [
        ("plus", "Plus", false), ("self_serve_business_usage_based", "Business", true), ("brand_new_tier", "brand_new_tier", false),
        ("EDU", "Edu", true),
    ])
    func plans(raw: String, display: String, workspace: Bool) {
        let plan = ChappiePlan(rawValue: raw)
        #expect(plan.displayName == display)
        #expect(plan.isWorkspace == workspace)
    }

    @Test("the back-off policy doubles, caps, honours Retry-After and clamps negatives")
    func backoffPolicy() {
        let policy = ChappieRateLimitBackoffPolicy(maxRetries: 5, initialDelay: 1, maximumDelay: 5)
        #expect((1...4).map { policy.delay(forRetry: $0, retryAfter: nil) } == [1, 2, 4, 5])
        #expect(policy.delay(forRetry: 1, retryAfter: 3) == 3)
        #expect(policy.delay(forRetry: 1, retryAfter: 100) == 5)
        #expect(ChappieRateLimitBackoffPolicy(maxRetries: -3).maxRetries == 0)
        #expect(ChappieRateLimitBackoffPolicy.disabled.maxRetries == 0)
        #expect(ChappieStreamingTransportPolicy.httpSSEOnly == ChappieStreamingTransportPolicy(prefersWebSocket: false, maxWebSocketReconnectionAttempts: 0))
    }
}

@Suite("Usage limits against the emulator")
struct UsageEmulatorTests {
    @Test("a usage limit reached mid-conversation is usageLimitReached with plan and reset time; the transcript keeps earlier turns")
    func midConversation() async throws {
        try await withSignedInClient { emulator, client, _ in
            _ = try await client.send("first turn")
            await emulator.enqueue(.usageLimitReached(resetsInSeconds: 3600))
            let error = await #expect(throws: ChappieClientError.self) { try await client.send("second turn") }
            guard case .usageLimitReached(let limit) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(limit.plan?.displayName == "Plus")
            let resetsAt = try #require(limit.resetsAt)
            #expect(abs(resetsAt.timeIntervalSinceNow - 3600) < 120)
            #expect(await client.context().messageCount == 2)
            #expect(await responseRequests(emulator).count == 2)
        }
    }

    @Test("usage grows with use and every response's headers carry a snapshot")
    func growsWithUse() async throws {
        try await withSignedInClient { emulator, client, _ in
            let before = try await client.usageLimits()
            var snapshots: [ChappieUsageLimitSnapshot] = []
            for try await event in client.stream("count me") { if case .usageLimits(let s) = event { snapshots.append(s) } }
            let after = try await client.usageLimits()
            #expect((after.primary?.usedPercent ?? 0) > (before.primary?.usedPercent ?? 0))
            #expect(snapshots.first?.primary?.windowMinutes == 300)
            await emulator.setPrimaryUsedPercent(87)
            #expect(try await client.usageLimits().primary?.usedPercent == 87)
        }
    }

    @Test("a payload whose primary window is the weekly one is classified by duration")
    func weeklyPrimary() throws {
        let json = #"{"plan_type":"pro","rate_limit":{"primary_window":{"used_percent":60,"limit_window_seconds":604800,"reset_after_seconds":1,"reset_at":1700600000},"secondary_window":{"used_percent":10,"limit_window_seconds":18000,"reset_after_seconds":1,"reset_at":1700010000}}}"#
        let snapshot = try UsagePayload.snapshot(from: Data(json.utf8))
        #expect(snapshot.primary?.windowMinutes == 300)
        #expect(snapshot.primary?.usedPercent == 10)
        #expect(snapshot.secondary?.windowMinutes == 10080)
        #expect(snapshot.secondary?.usedPercent == 60)
    }

    @Test("every window the backend sends is kept: a monthly window, additional limits, and which limit blocks")
    func everyWindow() throws {
        let window = #"{"used_percent":%d,"limit_window_seconds":%d,"reset_after_seconds":1,"reset_at":1700000000}"#
        func w(_ percent: Int, _ seconds: Int) -> String { String(format: window, percent, seconds) }
        let json = """
            {"plan_type":"pro","rate_limit":{"allowed":false,"limit_reached":true,"primary_window":\(w(100, 604_800)),\
            "secondary_window":\(w(40, 2_592_000)),"tertiary_window":\(w(5, 18_000))},\
            "additional_rate_limits":[{"limit_name":"GPT-5.3-Codex-Spark","metered_feature":"codex_bengalfox",\
            "rate_limit":{"allowed":true,"limit_reached":false,"primary_window":\(w(7, 18_000)),"secondary_window":null}}],\
            "rate_limit_reached_type":{"type":"workspace_member_usage_limit_reached"}}
            """
        let snapshot = try UsagePayload.snapshot(from: Data(json.utf8))
        #expect(snapshot.windows.map(\.windowMinutes) == [300, 10_080, 43_200])
        #expect(snapshot.windows.map(\.usedPercent) == [5, 100, 40])
        #expect(snapshot.primary?.windowMinutes == 300 && snapshot.secondary?.windowMinutes == 10_080)
        #expect(snapshot.limitReached == true)
        #expect(snapshot.blockedBy == .workspaceMemberUsageLimitReached)
        let spark = try #require(snapshot.additionalLimits.first)
        #expect(snapshot.additionalLimits.count == 1)
        #expect(spark.name == "GPT-5.3-Codex-Spark" && spark.meteredFeature == "codex_bengalfox")
        #expect(spark.windows.map(\.usedPercent) == [7])
        #expect(spark.limitReached == false)
        // and a snapshot saved before these fields existed still decodes
        let old = try JSONDecoder().decode(ChappieUsageLimitSnapshot.self, from: Data(#"{"primary":{"usedPercent":1,"windowMinutes":300}}"#.utf8))
        #expect(old.windows.map(\.usedPercent) == [1])
        #expect(old.additionalLimits.isEmpty && old.blockedBy == nil)
        let roundTrip = try JSONDecoder().decode(ChappieUsageLimitSnapshot.self, from: JSONEncoder().encode(snapshot))
        #expect(roundTrip == snapshot)
    }
}
