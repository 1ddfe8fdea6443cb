import ChappieTransport
import Foundation

/// Reads the `x-codex-*` rate-limit headers of a backend response (PROTOCOL §7.1) into a snapshot.
///
/// A window is reported only when its used percent parses and it says something (used ≠ 0, a
/// window length, or a reset). Resets are accepted as `…-reset-at` (unix seconds) or
/// `…-reset-after-seconds`. Booleans accept `true`/`false`/`1`/`0` in any case.
enum RateLimitHeaders {
    /// The snapshot in `headers` (names matched case-insensitively), or nil when there is none.
    static func snapshot(from headers: HTTPFields, now: Date = Date()) -> ChappieUsageLimitSnapshot? {
        let primary = window(Wire.primary, headers, now)
        let secondary = window(Wire.secondary, headers, now)
        let credits: ChappieCredits? = headers[Wire.hasCredits].flatMap(bool).map { has in
            ChappieCredits(hasCredits: has, unlimited: headers[Wire.unlimited].flatMap(bool) ?? false, balance: headers[Wire.balance])
        }
        guard primary != nil || secondary != nil || credits != nil else { return nil }
        return ChappieUsageLimitSnapshot(primary: primary, secondary: secondary,
                                         plan: headers[Wire.planType].map(ChappiePlan.init(rawValue:)), credits: credits)
    }

    private static func window(_ prefix: String, _ headers: HTTPFields, _ now: Date) -> ChappieUsageWindow? {
        guard let used = headers[prefix + Wire.usedPercent].flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }) else { return nil }
        let minutes = headers[prefix + Wire.windowMinutes].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        var reset = headers[prefix + Wire.resetAt].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            .map(Date.init(timeIntervalSince1970:))
        if reset == nil, let after = headers[prefix + Wire.resetAfter].flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }) {
            reset = now.addingTimeInterval(after)
        }
        guard used != 0 || (minutes ?? 0) != 0 || reset != nil else { return nil }
        return ChappieUsageWindow(usedPercent: used, windowMinutes: minutes, resetsAt: reset)
    }

    private static func bool(_ text: String) -> Bool? {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "1": true
        case "false", "0": false
        default: nil
        }
    }

    private enum Wire {
        static let primary = "x-codex-primary"
        static let secondary = "x-codex-secondary"
        static let usedPercent = "-used-percent"
        static let windowMinutes = "-window-minutes"
        static let resetAt = "-reset-at"
        static let resetAfter = "-reset-after-seconds"
        static let hasCredits = "x-codex-credits-has-credits"
        static let unlimited = "x-codex-credits-unlimited"
        static let balance = "x-codex-credits-balance"
        static let planType = "x-codex-plan-type"
    }
}
