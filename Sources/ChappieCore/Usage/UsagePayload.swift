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
        let additional = (object[Wire.additionalRateLimits]?.arrayValue ?? []).compactMap { entry -> ChappieAdditionalUsageLimit? in
            guard let entry = entry.objectValue else { return nil }
            let limit = entry[Wire.rateLimit]?.objectValue
            return ChappieAdditionalUsageLimit(name: entry[Wire.limitName]?.stringValue, meteredFeature: entry[Wire.meteredFeature]?.stringValue,
                                               windows: limit.map(windows) ?? [], limitReached: limit?[Wire.limitReached]?.boolValue)
        }
        let reachedType = object[Wire.rateLimitReachedType]
        let blocked = (reachedType?[Wire.type]?.stringValue ?? reachedType?.stringValue).map(ChappieUsageBlock.init(rawValue:))
        return ChappieUsageLimitSnapshot(
            windows: limits.map(windows) ?? [], additionalLimits: additional, limitReached: limits?[Wire.limitReached]?.boolValue,
            blockedBy: blocked, plan: object[Wire.planType]?.stringValue.map(ChappiePlan.init(rawValue:)), credits: credits)
    }

    /// Every window of a `rate_limit` object: `primary_window`, `secondary_window` and any other
    /// member named `…_window` (a monthly window, say), the others by name.
    private static func windows(_ limit: [String: ChappieJSONValue]) -> [ChappieUsageWindow] {
        let named = [Wire.primary, Wire.secondary] + limit.keys.filter { $0.hasSuffix(Wire.windowSuffix) && $0 != Wire.primary && $0 != Wire.secondary }.sorted()
        return named.compactMap { limit[$0].flatMap(window) }
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
        static let additionalRateLimits = "additional_rate_limits"
        static let limitName = "limit_name"
        static let meteredFeature = "metered_feature"
        static let limitReached = "limit_reached"
        static let rateLimitReachedType = "rate_limit_reached_type"
        static let type = "type"
        static let windowSuffix = "_window"
    }
}
