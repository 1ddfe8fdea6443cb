/// A wait in words for a hint ("45 seconds", "3 minutes", "2 hours").
enum DurationWords {
    /// `duration` rounded up to whole seconds, minutes or hours.
    static func phrase(_ duration: Duration) -> String {
        let seconds = max(0, Int((Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18).rounded(.up)))
        func unit(_ count: Int, _ name: String) -> String { "\(count) \(name)\(count == 1 ? "" : "s")" }
        if seconds < 120 { return unit(seconds, "second") }
        if seconds < 7200 { return unit((seconds + 59) / 60, "minute") }
        return unit((seconds + 3599) / 3600, "hour")
    }
}
