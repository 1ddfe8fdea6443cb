import ChappieSDK
import ChappieSDKRuntime
import Foundation

/// `threads list | show ID | resume ID PROMPT | archive ID | unarchive ID | delete ID`: the
/// conversations saved by `demo` and `threads resume`, kept by ChappieSDKRuntime's file store at
/// its default location (`$XDG_DATA_HOME/chappie/threads` on Linux).
@MainActor
enum ThreadCommands {
    /// One line of usage, shown with usage errors.
    nonisolated static let usage = "chappie threads list [--all] | show ID | resume ID PROMPT [--model SLUG] [--fast] | archive ID | unarchive ID | delete ID  [--json]"

    /// Runs a `threads` subcommand. Throws ``UsageError``, ``ChappieThreadStoreError``, or for
    /// `resume` ``ChappieAuthError`` / ``ChappieClientError``.
    static func run(_ arguments: ParsedArguments) async throws {
        guard let subcommand = arguments.positionals.first else { throw UsageError(message: "threads needs a subcommand: \(usage)") }
        let json = arguments.flag("json")
        let store = ChappieFileThreadStore()
        switch subcommand {
        case "list":
            try await list(store, includingArchived: arguments.flag("all"), json: json)
        case "show":
            try await show(try await thread(arguments, in: store), json: json)
        case "resume":
            try await resume(arguments, store: store, json: json)
        case "archive", "unarchive":
            let id = try await threadID(arguments, in: store)
            try await store.setArchived(subcommand == "archive", id: id)
            done(subcommand == "archive" ? "archived" : "unarchived", id: id, json: json)
        case "delete":
            let id = try await threadID(arguments, in: store)
            try await store.delete(id: id)
            done("deleted", id: id, json: json)
        default:
            throw UsageError(message: "unknown threads subcommand '\(subcommand)': \(usage)")
        }
        for issue in await store.issues() where !json {
            Terminal.error(Terminal.dim("note: \(issue.fileName): \(issue.detail)"))
        }
    }

    /// Streams the reply to `message` through `runtime`, which saves the turn; returns the thread
    /// id. Text goes to standard output as it arrives (or JSON lines). Throws
    /// ``ChappieClientError`` or ``ChappieThreadStoreError``.
    @discardableResult
    static func streamReply(_ runtime: ChappieRuntime, _ message: ChappieInputMessage, json: Bool) async throws -> UUID? {
        var printer = ReplyPrinter(json: json)
        var threadID: UUID?
        for try await event in runtime.stream(message) {
            switch event {
            case .turnStarted(let start):
                threadID = start.threadID
            case .textDelta(let text):
                printer.text(text)
            case .toolCallRequested(let call):
                printer.toolCall(name: call.name, callID: call.callID, arguments: call.arguments)
            case .toolCallCompleted(let call):
                printer.toolResult(name: call.name, callID: call.callID, status: call.status.rawValue, output: call.output ?? "")
            case .turnCompleted(let turn):
                printer.completed(responseID: turn.responseID, text: turn.outputText, usage: turn.usage,
                                  threadID: threadID?.uuidString.lowercased())
            case .reasoningSummaryDelta, .approvalRequested, .usageLimits, .usage, .turnFailed:
                break
            }
        }
        return threadID
    }

    // MARK: Subcommands

    private static func list(_ store: ChappieFileThreadStore, includingArchived: Bool, json: Bool) async throws {
        let threads = try await store.threads(includingArchived: includingArchived)
        if json {
            for thread in threads { Terminal.line(summaryJSON(thread).jsonString) }
            return
        }
        guard !threads.isEmpty else {
            Terminal.line(includingArchived ? "No saved threads." : "No saved threads (archived ones are hidden; use --all).")
            return
        }
        Terminal.line(Terminal.bold("ID                                    UPDATED           MSGS  TITLE"))
        for thread in threads {
            let count = String(thread.messageCount)
            Terminal.line(thread.id.uuidString.lowercased() + "  " + format(thread.updatedAt) + "  "
                + String(repeating: " ", count: max(0, 4 - count.count)) + count + "  "
                + Terminal.sanitizedLine(thread.title) + (thread.archived ? Terminal.dim(" (archived)") : ""))
        }
    }

    private static func show(_ thread: ChappieThread, json: Bool) async throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            Terminal.line(String(decoding: try encoder.encode(thread), as: UTF8.self))
            return
        }
        Terminal.line(Terminal.bold(Terminal.sanitizedLine(thread.title)) + (thread.archived ? Terminal.dim(" (archived)") : ""))
        Terminal.line(Terminal.dim("id \(thread.id.uuidString.lowercased()) · model \(thread.model) · created \(format(thread.createdAt)) · updated \(format(thread.updatedAt))"))
        let failed = thread.turns.filter { $0.status != .completed }.count
        let tokens = thread.totalUsage.map { " · \($0.totalTokens) tokens" } ?? ""
        Terminal.line(Terminal.dim("\(thread.turns.count) turns\(failed > 0 ? " (\(failed) not completed)" : "")\(tokens)"))
        Terminal.line()
        if let summary = thread.context.compactedSummary {
            Terminal.line(Terminal.dim("[summary of earlier messages] ") + Terminal.sanitized(summary))
        }
        for message in thread.context.messages {
            let role = switch message.role {
            case .user: "you"
            case .assistant: "assistant"
            case .system: "system"
            case .developer: "developer"
            }
            Terminal.line(Terminal.bold(role + ":") + " " + Terminal.sanitized(message.text))
        }
        for turn in thread.turns where turn.status != .completed {
            Terminal.line(Terminal.dim("[\(turn.status.rawValue) turn \(format(turn.startedAt))] \(turn.failure?.message ?? "")"))
        }
    }

    private static func resume(_ arguments: ParsedArguments, store: ChappieFileThreadStore, json: Bool) async throws {
        let id = try await threadID(arguments, in: store)
        let prompt = try ConversationCommands.prompt(from: arguments.positionals.dropFirst(2),
                                                     usage: "threads resume needs a prompt: chappie threads resume ID \"…\"")
        let environment = try await CLIEnvironment.make(arguments)
        defer { Task { await environment.shutdown() } }
        try await AccountCommands.ensureSignedIn(environment, json: json)
        let client = Chappie.client(configuration: environment.configuration)
        let runtime = client.runtime(store: store)
        try await runtime.resume(threadID: id)
        // The thread brings its own model; an explicit --model switches it, as /model does in chat.
        if let model = arguments.option("model") { await client.selectModel(model) }
        try await streamReply(runtime, .user(prompt, fastMode: arguments.flag("fast")), json: json)
        if !json { Terminal.error(Terminal.dim("Saved to thread \(id.uuidString.lowercased()).")) }
    }

    // MARK: Helpers

    /// The thread named by the second positional argument: a full id or a unique prefix of at
    /// least 4 characters (archived threads included). A full id is looked up too, so an unknown
    /// one is the same usage error as an unknown prefix (and `delete` never reports deleting a
    /// thread that was not there). Throws ``UsageError`` or ``ChappieThreadStoreError``.
    private static func threadID(_ arguments: ParsedArguments, in store: ChappieFileThreadStore) async throws -> UUID {
        guard arguments.positionals.count >= 2 else { throw UsageError(message: "threads \(arguments.positionals[0]) needs a thread ID: \(usage)") }
        let text = arguments.positionals[1].lowercased()
        guard text.count >= 4 else { throw UsageError(message: "'\(arguments.positionals[1])' is not a thread ID") }
        let matches = try await store.threads(includingArchived: true).filter { $0.id.uuidString.lowercased().hasPrefix(text) }
        guard matches.count == 1, let match = matches.first else {
            throw UsageError(message: matches.isEmpty ? "no thread ID starts with '\(text)'" : "'\(text)' matches \(matches.count) threads; give more of the ID")
        }
        return match.id
    }

    private static func thread(_ arguments: ParsedArguments, in store: ChappieFileThreadStore) async throws -> ChappieThread {
        try await store.thread(id: try await threadID(arguments, in: store))
    }

    private static func done(_ action: String, id: UUID, json: Bool) {
        if json {
            Terminal.line(ChappieJSONValue.object(["event": .string(action), "id": .string(id.uuidString.lowercased())]).jsonString)
        } else {
            Terminal.line("\(action.prefix(1).uppercased() + action.dropFirst()) thread \(id.uuidString.lowercased()).")
        }
    }

    private static func summaryJSON(_ thread: ChappieThreadSummary) -> ChappieJSONValue {
        ["id": .string(thread.id.uuidString.lowercased()), "title": .string(thread.title), "model": .string(thread.model),
         "created_at": .string(iso(thread.createdAt)), "updated_at": .string(iso(thread.updatedAt)), "archived": .bool(thread.archived),
         "message_count": .integer(thread.messageCount), "turn_count": .integer(thread.turnCount), "bytes": .integer(thread.byteCount)]
    }

    private static func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    private static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        formatter.locale = Locale(identifier: "en_US_POSIX")
        return formatter.string(from: date)
    }
}

extension Terminal {
    /// `text` without escape sequences or control characters other than newline and tab, so
    /// stored text cannot drive the terminal.
    static func sanitized(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { scalar in
            scalar == "\n" || scalar == "\t" || !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
        }))
    }

    /// ``sanitized(_:)`` on one line: newlines become spaces.
    static func sanitizedLine(_ text: String) -> String {
        sanitized(text).replacingOccurrences(of: "\n", with: " ")
    }
}
