import Foundation

/// One rate-limit window: how much of it is used and when it resets.
public struct ChappieUsageWindow: Sendable, Hashable, Codable {
    /// Percentage used, 0–100 (may be fractional).
    public var usedPercent: Double
    /// Length of the window in minutes (300 = 5 hours, 10080 = a week), if known.
    public var windowMinutes: Int?
    /// When the window resets, if known.
    public var resetsAt: Date?

    /// Creates a window.
    public init(usedPercent: Double, windowMinutes: Int?, resetsAt: Date?) {
        self.usedPercent = usedPercent
        self.windowMinutes = windowMinutes
        self.resetsAt = resetsAt
    }
}

/// Credits attached to the account.
public struct ChappieCredits: Sendable, Hashable, Codable {
    /// The account has credits to spend.
    public var hasCredits: Bool
    /// Credits are unlimited.
    public var unlimited: Bool
    /// The balance as the server formats it, e.g. "0".
    public var balance: String?

    /// Creates a credits value.
    public init(hasCredits: Bool, unlimited: Bool, balance: String?) {
        self.hasCredits = hasCredits
        self.unlimited = unlimited
        self.balance = balance
    }
}

/// The account's usage limits at one moment: the short (primary) and long (secondary) windows,
/// the plan and credits. Windows are classified by duration, not by the server's labels: the
/// shorter one is `primary`. ``windows`` holds every window of the main limit (a monthly one
/// too), ``additionalLimits`` the other limits (per model or feature), and ``blockedBy`` which
/// limit blocks requests, when the server says.
public struct ChappieUsageLimitSnapshot: Sendable, Hashable, Codable {
    /// The shorter window (typically 5 hours).
    public var primary: ChappieUsageWindow?
    /// The longer window (typically 7 days).
    public var secondary: ChappieUsageWindow?
    /// The plan, when the source names it.
    public var plan: ChappiePlan?
    /// Credits, when reported.
    public var credits: ChappieCredits?
    /// Every window of the account's main limit, shortest first (`primary` and `secondary` are
    /// the first two when there are more, e.g. a monthly window).
    public var windows: [ChappieUsageWindow] = []
    /// Limits besides the main one, in the server's order.
    public var additionalLimits: [ChappieAdditionalUsageLimit] = []
    /// Whether the main limit is reached, when the server says.
    public var limitReached: Bool?
    /// Which limit blocks requests, when one does and the server says which.
    public var blockedBy: ChappieUsageBlock?

    /// Creates a snapshot, ordering the windows by duration.
    public init(primary: ChappieUsageWindow?, secondary: ChappieUsageWindow?, plan: ChappiePlan? = nil, credits: ChappieCredits? = nil) {
        if let first = primary, let second = secondary,
           let a = first.windowMinutes, let b = second.windowMinutes, a > b {
            self.primary = second
            self.secondary = first
        } else {
            self.primary = primary
            self.secondary = secondary
        }
        self.plan = plan
        self.credits = credits
        windows = [self.primary, self.secondary].compactMap { $0 }
    }

    /// Creates a snapshot from every window of the main limit (ordered by duration; the first two
    /// become `primary` and `secondary`), the other limits, and what blocks.
    public init(windows: [ChappieUsageWindow], additionalLimits: [ChappieAdditionalUsageLimit] = [], limitReached: Bool? = nil,
                blockedBy: ChappieUsageBlock? = nil, plan: ChappiePlan? = nil, credits: ChappieCredits? = nil) {
        let ordered = ChappieUsageWindow.byDuration(windows)
        self.init(primary: ordered.first, secondary: ordered.dropFirst().first, plan: plan, credits: credits)
        self.windows = ordered
        self.additionalLimits = additionalLimits
        self.limitReached = limitReached
        self.blockedBy = blockedBy
    }

    private enum CodingKeys: String, CodingKey {
        case primary, secondary, plan, credits, windows, additionalLimits, limitReached, blockedBy
    }

    /// Decodes a snapshot; data saved before `windows`, `additionalLimits`, `limitReached` and
    /// `blockedBy` existed decodes with their defaults (`windows` from `primary` and `secondary`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        primary = try container.decodeIfPresent(ChappieUsageWindow.self, forKey: .primary)
        secondary = try container.decodeIfPresent(ChappieUsageWindow.self, forKey: .secondary)
        plan = try container.decodeIfPresent(ChappiePlan.self, forKey: .plan)
        credits = try container.decodeIfPresent(ChappieCredits.self, forKey: .credits)
        windows = try container.decodeIfPresent([ChappieUsageWindow].self, forKey: .windows) ?? [primary, secondary].compactMap { $0 }
        additionalLimits = try container.decodeIfPresent([ChappieAdditionalUsageLimit].self, forKey: .additionalLimits) ?? []
        limitReached = try container.decodeIfPresent(Bool.self, forKey: .limitReached)
        blockedBy = try container.decodeIfPresent(ChappieUsageBlock.self, forKey: .blockedBy)
    }
}

/// Why a request was refused for quota: the payload of ``ChappieClientError/usageLimitReached(_:)``.
public struct ChappieUsageLimit: Sendable, Hashable, Codable {
    /// The plan the server named.
    public var plan: ChappiePlan?
    /// When the limit resets, if known.
    public var resetsAt: Date?
    /// The window that ran out, if known.
    public var window: ChappieUsageWindow?
    /// The server's message, sanitized and bounded; on a Sign in with ChatGPT sign-in, whose
    /// server text may echo the user's input, Chappie's own sentence instead.
    public var message: String
    /// Where the user manages the plan's usage ("Manage usage": `https://chatgpt.com/settings/usage`)
    /// on a Sign in with ChatGPT sign-in, which reports neither figures nor a reset time; nil on
    /// a device-code sign-in.
    public var manageUsageURL: URL?
    /// The server's request id (`x-request-id`) of the refused request, when it sent one.
    public var requestID: String?
    /// How long until the limit resets, as the server counted when it refused the request (its
    /// `resets_in_seconds`). Nil when the server sent no such count (only ``resetsAt``, or no
    /// reset at all, as on a Sign in with ChatGPT sign-in);
    /// ``ChappieClientError/retryAfter`` then counts the wait from ``resetsAt``.
    public var retryAfter: Duration?

    /// Creates a usage limit value; `retryAfter` is the wait until it resets, when known.
    public init(plan: ChappiePlan?, resetsAt: Date?, window: ChappieUsageWindow?, message: String, manageUsageURL: URL? = nil,
                requestID: String? = nil, retryAfter: Duration? = nil) {
        self.plan = plan
        self.resetsAt = resetsAt
        self.window = window
        self.message = message
        self.manageUsageURL = manageUsageURL
        self.requestID = requestID
        self.retryAfter = retryAfter
    }
}
