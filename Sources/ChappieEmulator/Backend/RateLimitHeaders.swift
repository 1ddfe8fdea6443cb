/// The rate-limit response headers of the `codex` limit family (PROTOCOL §7.1), built from a
/// ``UsageMeter`` reading. Percentages are sent as integers, windows in minutes, resets as unix
/// seconds; credit Booleans use the real server's `True`/`False` spelling.
enum RateLimitHeaders {
    /// The header fields for `snapshot` at `now` (unix seconds) for an account on `planType`.
    static func fields(_ snapshot: UsageMeter.Snapshot, now: Int, planType: String) -> [(name: String, value: String)] {
        [
            (Wire.primaryUsedPercent, String(snapshot.primaryUsedPercent)),
            (Wire.primaryWindowMinutes, String(UsageMeter.primaryWindowSeconds / 60)),
            (Wire.primaryResetAt, String(snapshot.primaryResetAt)),
            (Wire.primaryResetAfter, String(max(0, snapshot.primaryResetAt - now))),
            (Wire.secondaryUsedPercent, String(snapshot.secondaryUsedPercent)),
            (Wire.secondaryWindowMinutes, String(UsageMeter.secondaryWindowSeconds / 60)),
            (Wire.secondaryResetAt, String(snapshot.secondaryResetAt)),
            (Wire.secondaryResetAfter, String(max(0, snapshot.secondaryResetAt - now))),
            (Wire.overSecondary, "0"),
            (Wire.hasCredits, "False"),
            (Wire.unlimited, "False"),
            (Wire.balance, "0"),
            (Wire.planType, planType),
        ]
    }

    private enum Wire {
        static let primaryUsedPercent = "x-codex-primary-used-percent"
        static let primaryWindowMinutes = "x-codex-primary-window-minutes"
        static let primaryResetAt = "x-codex-primary-reset-at"
        static let primaryResetAfter = "x-codex-primary-reset-after-seconds"
        static let secondaryUsedPercent = "x-codex-secondary-used-percent"
        static let secondaryWindowMinutes = "x-codex-secondary-window-minutes"
        static let secondaryResetAt = "x-codex-secondary-reset-at"
        static let secondaryResetAfter = "x-codex-secondary-reset-after-seconds"
        static let overSecondary = "x-codex-primary-over-secondary-limit-percent"
        static let hasCredits = "x-codex-credits-has-credits"
        static let unlimited = "x-codex-credits-unlimited"
        static let balance = "x-codex-credits-balance"
        static let planType = "x-codex-plan-type"
    }
}
