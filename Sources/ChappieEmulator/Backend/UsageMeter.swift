import Foundation

/// Rate-limit usage of the emulated account (PROTOCOL §7): a 5-hour primary window and a weekly
/// secondary window whose used percentages grow with every served response.
actor UsageMeter {
    /// A consistent reading of both windows.
    struct Snapshot: Sendable {
        /// Used percentage of the primary window, 0–100.
        var primaryUsedPercent: Int
        /// Unix time (seconds) when the primary window resets.
        var primaryResetAt: Int
        /// Used percentage of the secondary window, 0–100.
        var secondaryUsedPercent: Int
        /// Unix time (seconds) when the secondary window resets.
        var secondaryResetAt: Int
        /// Responses served so far.
        var responses: Int
    }

    /// Primary window length: 5 hours, in seconds.
    static let primaryWindowSeconds = 18_000
    /// Secondary window length: 7 days, in seconds.
    static let secondaryWindowSeconds = 604_800

    private let percentPerResponse: Int
    private let startedAt = Int(Date().timeIntervalSince1970)
    private var responses = 0
    private var primaryOverride: Int?

    /// Creates a meter adding `percentPerResponse` points to the primary window per response.
    init(percentPerResponse: Int) { self.percentPerResponse = percentPerResponse }

    /// Counts one served response.
    func recordResponse() { responses += 1 }

    /// Forces the primary used percentage (tests of usage limits); nil restores counting.
    func setPrimaryUsedPercent(_ percent: Int?) { primaryOverride = percent }

    /// The current reading.
    func snapshot() -> Snapshot {
        let primary = min(100, primaryOverride ?? responses * percentPerResponse)
        let secondary = min(100, (responses * percentPerResponse + 4) / 5)
        return Snapshot(
            primaryUsedPercent: primary,
            primaryResetAt: startedAt + Self.primaryWindowSeconds,
            secondaryUsedPercent: secondary,
            secondaryResetAt: startedAt + Self.secondaryWindowSeconds,
            responses: responses
        )
    }
}
