import ChappieEmulator
import Foundation

/// `emulator`: serves the emulator on a loopback port until interrupted, for other clients.
@MainActor
enum EmulatorCommand {
    /// Starts the emulator and waits for SIGINT or SIGTERM. Throws ``UsageError`` for a bad option.
    static func run(_ arguments: ParsedArguments) async throws {
        func integer(_ name: String, default value: Int) throws -> Int {
            guard let text = arguments.option(name) else { return value }
            guard let number = Int(text), number >= 0 else { throw UsageError(message: "--\(name) must be a whole number") }
            return number
        }
        let port = try integer("port", default: 0)
        guard port <= 65535 else { throw UsageError(message: "--port must be at most 65535") }
        let emulator = try await ChappieEmulator.start(.init(
            port: port, pollingIntervalSeconds: try integer("poll-interval", default: 5),
            autoApproveAfterPolls: arguments.option("approve-after") == "never" ? nil : try integer("approve-after", default: 2)))
        if arguments.flag("json") {
            Terminal.line(#"{"event":"listening","url":"\#(emulator.baseURL.absoluteString)","port":\#(emulator.port)}"#)
        } else {
            Terminal.line("Chappie emulator listening on \(emulator.baseURL.absoluteString)")
            Terminal.line("  auth issuer:  \(emulator.baseURL.absoluteString)")
            Terminal.line("  backend:      \(emulator.backendBaseURL.absoluteString)")
            Terminal.line("Press Ctrl-C to stop.")
        }
        await waitForTerminationSignal()
        await emulator.shutdown()
    }

    /// Returns when the command is cancelled (SIGINT or SIGTERM, see `ChappieCommand.main`).
    static func waitForTerminationSignal() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
    }
}
