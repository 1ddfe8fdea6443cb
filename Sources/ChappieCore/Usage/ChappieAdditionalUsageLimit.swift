import Foundation

/// A usage limit besides the account's main one, such as a per-model limit: its name, the
/// feature it meters, and its windows.
public struct ChappieAdditionalUsageLimit: Sendable, Hashable, Codable {
    /// The limit's display name as the server sends it (for example a model name), if any.
    public var name: String?
    /// The metered feature the limit applies to (the server's identifier), if any.
    public var meteredFeature: String?
    /// The limit's windows, shortest first.
    public var windows: [ChappieUsageWindow]
    /// Whether this limit is reached, when the server says.
    public var limitReached: Bool?

    /// Creates an additional limit; `windows` are ordered by duration, shortest first.
    public init(name: String?, meteredFeature: String?, windows: [ChappieUsageWindow], limitReached: Bool?) {
        self.name = name
        self.meteredFeature = meteredFeature
        self.windows = ChappieUsageWindow.byDuration(windows)
        self.limitReached = limitReached
    }
}

/// Which limit blocks the account's requests, as the server reports it.
public struct ChappieUsageBlock: Sendable, Hashable, Codable, RawRepresentable {
    /// The server's identifier, kept as sent so new kinds are not lost.
    public var rawValue: String

    /// Wraps a server identifier.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The account's own rate limit is reached.
    public static let rateLimitReached = ChappieUsageBlock(rawValue: "rate_limit_reached")
    /// The workspace owner's credits are used up.
    public static let workspaceOwnerCreditsDepleted = ChappieUsageBlock(rawValue: "workspace_owner_credits_depleted")
    /// A workspace member's credits are used up.
    public static let workspaceMemberCreditsDepleted = ChappieUsageBlock(rawValue: "workspace_member_credits_depleted")
    /// The workspace owner's usage limit is reached.
    public static let workspaceOwnerUsageLimitReached = ChappieUsageBlock(rawValue: "workspace_owner_usage_limit_reached")
    /// A workspace member's usage limit is reached.
    public static let workspaceMemberUsageLimitReached = ChappieUsageBlock(rawValue: "workspace_member_usage_limit_reached")
}

extension ChappieUsageWindow {
    /// `windows` ordered by duration, shortest first; windows of unknown length go last, in order.
    static func byDuration(_ windows: [ChappieUsageWindow]) -> [ChappieUsageWindow] {
        windows.enumerated().sorted { left, right in
            switch (left.element.windowMinutes, right.element.windowMinutes) {
            case let (a?, b?): a == b ? left.offset < right.offset : a < b
            case (.some, nil): true
            case (nil, .some): false
            case (nil, nil): left.offset < right.offset
            }
        }.map(\.element)
    }
}
