import Foundation

/// A one-line spinner with a countdown, redrawn in place on a terminal; silent when standard
/// output is not a terminal or `NO_COLOR` is set (no cursor moves in pipes, files or plain output).
@MainActor
final class ProgressLine {
    private var task: Task<Void, Never>?
    /// A line was drawn (so ``stop()`` erases it).
    private var drawn = false
    private static let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    /// Starts showing `label` with the time left until `deadline`.
    func start(_ label: String, until deadline: Date) {
        guard Terminal.colors else { return }
        task = Task { @MainActor in
            var frame = 0
            while !Task.isCancelled {
                let left = max(0, Int(deadline.timeIntervalSinceNow))
                let clock = String(format: "%d:%02d", left / 60, left % 60)
                Terminal.write("\r\u{1B}[2K\(Self.frames[frame % Self.frames.count]) \(label) (code expires in \(clock))")
                drawn = true
                frame += 1
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Shows `label` with the seconds since the call, from `delay` on (a reply that starts
    /// sooner shows nothing), until ``stop()``: "⠋ Waiting for the server (12 s)".
    func startWaiting(_ label: String, after delay: Duration = .seconds(1)) {
        guard Terminal.colors else { return }
        let started = Date()
        // Weak: a line whose owner is gone stops drawing.
        task = Task { @MainActor [weak self] in
            try? await Task.sleep(for: delay)
            var frame = 0
            while !Task.isCancelled, let self {
                let seconds = Int(Date().timeIntervalSince(started))
                Terminal.write("\r\u{1B}[2K\(Self.frames[frame % Self.frames.count]) \(label) (\(seconds) s)")
                self.drawn = true
                frame += 1
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Stops and erases the line, when one was drawn.
    func stop() {
        guard let task else { return }
        task.cancel()
        self.task = nil
        if drawn { Terminal.write("\r\u{1B}[2K") }
        drawn = false
    }
}
