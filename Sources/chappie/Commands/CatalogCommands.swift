import ChappieSDK
import Foundation

/// `models` and `usage`.
@MainActor
enum CatalogCommands {
    /// Prints the model catalog as a table (or JSON lines). Throws ``ChappieClientError``.
    static func models(_ arguments: ParsedArguments, _ environment: CLIEnvironment) async throws {
        let json = arguments.flag("json")
        try await AccountCommands.ensureSignedIn(environment, json: json)
        let models = try await CLIClients.client(configuration: environment.configuration).models()
        if json {
            for model in models {
                Terminal.jsonLine(ChappieJSONValue.object([
                    "slug": .string(model.slug), "display_name": .string(model.displayName), "priority": .integer(model.priority),
                    "context_window": model.contextWindow.map(ChappieJSONValue.integer) ?? .null,
                    "reasoning_levels": .array(model.supportedReasoningLevels.map(ChappieJSONValue.string)),
                ]))
            }
            return
        }
        // Catalog strings come from the server: sanitized before they reach the terminal.
        let width = max(12, models.map { Terminal.sanitizedLine($0.slug).count }.max() ?? 0)
        Terminal.line(Terminal.bold("MODEL".padding(toLength: width + 2, withPad: " ", startingAt: 0) + "NAME                CONTEXT   REASONING"))
        for model in models {
            let context = model.contextWindow.map { "\($0 / 1000)k" } ?? "-"
            Terminal.line(Terminal.sanitizedLine(model.slug).padding(toLength: width + 2, withPad: " ", startingAt: 0)
                + Terminal.sanitizedLine(model.displayName).padding(toLength: 20, withPad: " ", startingAt: 0)
                + context.padding(toLength: 10, withPad: " ", startingAt: 0)
                + Terminal.sanitizedLine(model.supportedReasoningLevels.joined(separator: ",")))
        }
    }

    /// Warns when the catalog has no model `slug`, naming the closest slugs; the request is
    /// still sent (the server decides). Silent when the catalog cannot be read. The warning goes
    /// to standard error, or with `json` as a `{"event":"warning",…}` line.
    static func warnIfUnknownModel(_ slug: String, client: ChappieClient, json: Bool) async {
        guard let models = try? await client.models(), !models.isEmpty, !models.contains(where: { $0.slug == slug }) else { return }
        let closest = models.map(\.slug).sorted { editDistance(slug, $0) < editDistance(slug, $1) }.prefix(3)
        let message = "the model catalog has no '\(slug)'; closest: \(closest.joined(separator: ", ")). Sending it anyway."
        if json {
            Terminal.jsonLine(ChappieJSONValue.object(["event": "warning", "message": .string(message)]))
        } else {
            Terminal.error("chappie: warning: " + Terminal.sanitizedLine(message))
        }
    }

    /// The Levenshtein distance between `a` and `b`, in characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for (i, left) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, right) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (left == right ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// Prints each usage window as a bar with its reset time. Throws ``ChappieClientError``.
    static func usage(_ arguments: ParsedArguments, _ environment: CLIEnvironment) async throws {
        let json = arguments.flag("json")
        try await AccountCommands.ensureSignedIn(environment, json: json)
        guard let snapshot = try await usageLimits(CLIClients.client(configuration: environment.configuration)) else {
            printPlanUsage(json: json)
            return
        }
        if json {
            func window(_ window: ChappieUsageWindow?) -> ChappieJSONValue {
                guard let window else { return .null }
                return ["used_percent": .number(window.usedPercent), "window_minutes": window.windowMinutes.map(ChappieJSONValue.integer) ?? .null,
                        "resets_at": window.resetsAt.map { .integer(Int($0.timeIntervalSince1970)) } ?? .null]
            }
            // The credits the backend reports (has_credits, unlimited, balance), as the text output shows them.
            let credits: ChappieJSONValue = snapshot.credits.map { credits in
                ["has_credits": .bool(credits.hasCredits), "unlimited": .bool(credits.unlimited),
                 "balance": credits.balance.map(ChappieJSONValue.string) ?? .null]
            } ?? .null
            Terminal.jsonLine(ChappieJSONValue.object(["plan": snapshot.plan.map { .string($0.rawValue) } ?? .null,
                                                   "primary": window(snapshot.primary), "secondary": window(snapshot.secondary),
                                                   "limit_reached": snapshot.limitReached.map(ChappieJSONValue.bool) ?? .null,
                                                   "credits": credits]))
            return
        }
        printUsage(snapshot)
    }

    /// The client's usage limits, or nil on a Sign in with ChatGPT sign-in, whose plan reports no
    /// figures. Throws ``ChappieClientError``.
    static func usageLimits(_ client: ChappieClient) async throws -> ChappieUsageLimitSnapshot? {
        do {
            return try await client.usageLimits()
        } catch ChappieClientError.publicAPI(let error) where error.code == .usageFiguresUnavailable {
            return nil
        }
    }

    /// Says that a Sign in with ChatGPT sign-in's plan reports no usage figures, and where the
    /// user manages usage (the same link ``ChappieAPIError/manageUsageURL`` gives apps).
    static func printPlanUsage(json: Bool) {
        let url = ChappieAPIError.manageUsageURL.absoluteString
        if json {
            Terminal.jsonLine(ChappieJSONValue.object(["route": "sign_in_with_chatgpt", "figures_reported": false,
                                                   "manage_usage_url": .string(url)]))
            return
        }
        Terminal.line("Using your ChatGPT plan: it reports no usage figures or reset times to apps.")
        Terminal.line("Manage usage: \(url)")
    }

    /// Prints a snapshot as bars.
    static func printUsage(_ snapshot: ChappieUsageLimitSnapshot) {
        if let plan = snapshot.plan { Terminal.line("Plan: \(Terminal.sanitizedLine(plan.displayName))") }
        for (label, window) in [("Short window", snapshot.primary), ("Long window", snapshot.secondary)] {
            guard let window else { continue }
            let length = window.windowMinutes.map(describe(minutes:)) ?? "?"
            let reset = window.resetsAt.map { " resets \(format($0))" } ?? ""
            Terminal.line("\(label) (\(length)) \(Terminal.bar(percent: window.usedPercent)) \(String(format: "%.0f", window.usedPercent))% used\(reset)")
        }
        if let credits = snapshot.credits {
            Terminal.line("Credits: \(credits.unlimited ? "unlimited" : Terminal.sanitizedLine(credits.balance ?? "0"))")
        }
    }

    private static func describe(minutes: Int) -> String {
        minutes % 1440 == 0 ? "\(minutes / 1440)d" : minutes % 60 == 0 ? "\(minutes / 60)h" : "\(minutes)m"
    }

    private static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = Calendar.current.isDateInToday(date) ? "HH:mm" : "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}
