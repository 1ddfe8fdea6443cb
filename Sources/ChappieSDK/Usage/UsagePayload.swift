import Foundation

/// Decodes the `/wham/usage` payload (PROTOCOL §7.2) into a snapshot. Window numbers may be
/// integers or decimals; `limit_window_seconds` becomes minutes rounded up.
enum UsagePayload {
    /// Parses `data`; throws ``ChappieClientError/invalidResponse(_:)`` when it is not the usage shape.
    static func snapshot(from data: Data) throws -> ChappieUsageLimitSnapshot {
        guard let root = try? ChappieJSONValue(jsonData: data), let object = root.objectValue else {
            throw ChappieClientError.invalidResponse("usage response is not a JSON object")
        }
        let limits = object[Wire.rateLimit]?.objectValue
        let credits = object[Wire.credits]?.objectValue.map { credits in
            ChappieCredits(hasCredits: credits[Wire.hasCredits]?.boolValue ?? false,
                           unlimited: credits[Wire.unlimited]?.boolValue ?? false,
                           balance: credits[Wire.balance]?.stringValue ?? credits[Wire.balance]?.doubleValue.map { "\($0)" })
        }
        return ChappieUsageLimitSnapshot(
            primary: limits?[Wire.primary].flatMap(window),
            secondary: limits?[Wire.secondary].flatMap(window),
            plan: object[Wire.planType]?.stringValue.map(ChappiePlan.init(rawValue:)),
            credits: credits)
    }

    private static func window(_ value: ChappieJSONValue) -> ChappieUsageWindow? {
        guard let window = value.objectValue, let used = window[Wire.usedPercent]?.doubleValue else { return nil }
        let minutes = window[Wire.windowSeconds]?.doubleValue.map { Int(($0 / 60).rounded(.up)) }
        let reset = window[Wire.resetAt]?.doubleValue.map(Date.init(timeIntervalSince1970:))
        return ChappieUsageWindow(usedPercent: used, windowMinutes: minutes, resetsAt: reset)
    }

    private enum Wire {
        static let rateLimit = "rate_limit"
        static let primary = "primary_window"
        static let secondary = "secondary_window"
        static let usedPercent = "used_percent"
        static let windowSeconds = "limit_window_seconds"
        static let resetAt = "reset_at"
        static let planType = "plan_type"
        static let credits = "credits"
        static let hasCredits = "has_credits"
        static let unlimited = "unlimited"
        static let balance = "balance"
    }
}
