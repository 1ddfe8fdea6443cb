@_spi(ChappieTesting) import ChappieSDKRuntime
import ChappieSDK
import Foundation

/// `threads list | show ID | resume ID PROMPT | archive ID | unarchive ID | delete ID`: the
/// conversations saved by `demo` and `threads resume`, kept by ChappieSDKRuntime's file store at
/// its default location (`$XDG_DATA_HOME/chappie/threads` on Linux).
@MainActor
enum ThreadCommands {
    /// One line of usage, shown with usage errors.
    nonisolated static let usage = "chappie threads list [--all] | show ID | resume ID PROMPT [--model SLUG] [--fast] [--raw] | archive ID | unarchive ID | delete ID  [--json]"

    /// Runs a `threads` subcommand. Throws ``UsageError``, ``ChappieThreadStoreError``, or for
    /// `resume` ``ChappieAuthError`` / ``ChappieClientError``.
    static func run(_ arguments: ParsedArguments) async throws {
        guard let subcommand = arguments.positionals.first else { throw UsageError(message: "threads needs a subcommand: \(usage)") }
        let json = arguments.flag("json")
        let store = Self.store()
        // Files set aside or skipped are named, also when the command fails because of them.
        do {
            try await perform(subcommand, arguments, store: store, json: json)
        } catch {
            await reportIssues(in: store, json: json)
            throw error
        }
        await reportIssues(in: store, json: json)
    }

    /// Runs the subcommand `subcommand` on `store`. Throws as ``run(_:)`` does.
    private static func perform(_ subcommand: String, _ arguments: ParsedArguments, store: ChappieFileThreadStore, json: Bool) async throws {
        switch subcommand {
        case "list":
            try await list(store, includingArchived: arguments.flag("all"), json: json)
        case "show":
            let summary = try await resolve(arguments, in: store)
            try await show(try await store.thread(id: summary.id), bytes: summary.byteCount, json: json, raw: arguments.flag("raw"))
        case "resume":
            try await resume(arguments, store: store, json: json)
        case "archive", "unarchive":
            let id = try await resolve(arguments, in: store).id
            try await store.setArchived(subcommand == "archive", id: id)
            done(subcommand == "archive" ? "archived" : "unarchived", id: id, json: json)
        case "delete":
            let id = try await resolve(arguments, in: store).id
            try await store.delete(id: id)
            done("deleted", id: id, json: json)
        default:
            throw UsageError(message: "unknown threads subcommand '\(subcommand)': \(usage)")
        }
    }

    /// Prints a note for each problem `store` found (a damaged file set aside: with the path it
    /// was moved to), unless the output is JSON.
    private static func reportIssues(in store: ChappieFileThreadStore, json: Bool) async {
        guard !json else { return }
        for issue in await store.issues() {
            let moved = issue.setAsideAs.map { "; moved to " + store.directory.appending(path: $0).path } ?? ""
            Terminal.error(Terminal.dim("note: " + Terminal.sanitizedLine("\(issue.fileName): \(issue.detail)\(moved)")))
        }
    }

    /// The thread store at its default location. Debug builds honour
    /// `CHAPPIE_TEST_THREAD_WRITE_FAULT=ENOSPC` (or another `errno` name or number): every
    /// write of a thread file then fails that way, so tests see a full disk without filling one.
    static func store() -> ChappieFileThreadStore {
        // The folder the CLI has always used, named explicitly (an app's default is its own).
        let directory = ChappieFileThreadStore.sharedLegacyDirectory()
        #if DEBUG
        if let name = ProcessInfo.processInfo.environment["CHAPPIE_TEST_THREAD_WRITE_FAULT"], !name.isEmpty {
            let number = ["ENOSPC": ENOSPC, "EIO": EIO, "EDQUOT": EDQUOT][name] ?? Int32(name) ?? ENOSPC
            return ChappieFileThreadStore(directory: directory, faults: .failingThreadWrites(errorNumber: number, bytesWritten: 7))
        }
        #endif
        return ChappieFileThreadStore(directory: directory)
    }

    /// Streams the reply to `message` through `runtime`, which saves the turn; returns the thread
    /// id. Text goes to standard output as it arrives (or JSON lines). When the consuming task is
    /// cancelled, waits until the runtime stored the turn as cancelled, then throws
    /// `CancellationError`. Throws ``ChappieClientError``, ``TurnNotSaved`` (the reply arrived but
    /// could not be stored) or `CancellationError`.
    @discardableResult
    static func streamReply(_ runtime: ChappieRuntime, _ message: ChappieInputMessage, json: Bool, raw: Bool = false) async throws -> UUID? {
        var printer = ReplyPrinter(json: json, raw: raw)
        var threadID: UUID?
        do {
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
                                      threadID: threadID?.uuidString.lowercased(), transport: turn.transport)
                case .contextRepaired(let repair):
                    printer.contextRepaired(repair)
                case .webSearch(let call):
                    printer.webSearch(call)
                case .reasoningSummaryDelta, .approvalRequested, .usageLimits, .usage, .turnFailed:
                    break
                }
            }
        } catch let error as ChappieThreadStoreError {
            printer.interrupted()
            throw TurnNotSaved(reason: error)
        } catch {
            printer.interrupted()
            throw error
        }
        if Task.isCancelled {
            printer.interrupted()
            await runtime.waitUntilIdle()
            throw CancellationError()
        }
        return threadID
    }

    // MARK: Subcommands

    private static func list(_ store: ChappieFileThreadStore, includingArchived: Bool, json: Bool) async throws {
        let threads = try await store.threads(includingArchived: includingArchived)
        if json {
            for thread in threads { Terminal.jsonLine(summaryJSON(thread)) }
            return
        }
        guard !threads.isEmpty else {
            Terminal.line(includingArchived ? "No saved threads." : "No saved threads (archived ones are hidden; use --all).")
            return
        }
        // Turns, not transcript messages: a compacted thread's transcript is short or empty.
        Terminal.line(Terminal.bold("ID                                    UPDATED          TURNS  TITLE"))
        for thread in threads {
            let count = String(thread.turnCount)
            Terminal.line(thread.id.uuidString.lowercased() + "  " + format(thread.updatedAt) + "  "
                + String(repeating: " ", count: max(0, 5 - count.count)) + count + "  "
                + Terminal.sanitizedLine(thread.title) + (thread.archived ? Terminal.dim(" (archived)") : ""))
        }
    }

    /// Prints a thread: a header, then the conversation. A thread that was compacted is shown
    /// from its turn records (the transcript then holds only what the model still sees), with a
    /// marker where the compaction happened; otherwise from its transcript.
    private static func show(_ thread: ChappieThread, bytes: Int, json: Bool, raw: Bool) async throws {
        if json {
            Terminal.jsonLine(threadJSON(thread, bytes: bytes))
            return
        }
        func text(_ value: String) -> String { raw ? value : Terminal.sanitized(value) }
        Terminal.line(Terminal.bold(Terminal.sanitizedLine(thread.title)) + (thread.archived ? Terminal.dim(" (archived)") : ""))
        Terminal.line(Terminal.dim("id \(thread.id.uuidString.lowercased()) · model \(Terminal.sanitizedLine(thread.model)) · "
                                   + "created \(format(thread.createdAt)) · updated \(format(thread.updatedAt))"))
        let failed = thread.turns.filter { $0.status != .completed }.count
        let tokens = thread.totalUsage.map { " · \($0.totalTokens) tokens" } ?? ""
        Terminal.line(Terminal.dim(count(thread.turns.count, "turn") + (failed > 0 ? " (\(failed) not completed)" : "") + tokens))
        Terminal.line()
        // Turn by turn when a compaction or a turn that did not complete must show where it was.
        let repaired = thread.turns.contains { $0.contextRepair != nil }
        guard (thread.compactions.isEmpty && failed == 0 && !repaired) || thread.turns.isEmpty else {
            showTurns(thread, text: text)
            return
        }
        if let summary = thread.context.compactedSummary {
            Terminal.line(Terminal.dim("[summary of earlier messages] ") + text(summary))
        }
        for message in thread.context.messages {
            Terminal.line(Terminal.bold(label(message.role) + ":") + " " + text(message.text))
            showAttachments(of: message)
        }
    }

    /// One dim line per attachment of `message` ("[image: image/png, 12 KB]"): threads keep what
    /// an image is, not its bytes.
    private static func showAttachments(of message: ChappieInputMessage) {
        for attachment in message.attachments {
            Terminal.line(Terminal.dim("[image: " + Terminal.sanitizedLine(attachment.summary) + "]"))
        }
    }

    /// The conversation turn by turn, with each compaction and each turn that did not complete
    /// (and the text it showed) where it happened.
    private static func showTurns(_ thread: ChappieThread, text: (String) -> String) {
        var compactions = thread.compactions.sorted { $0.createdAt < $1.createdAt }[...]
        func showCompactions(before date: Date?) {
            while let compaction = compactions.first, date.map({ compaction.createdAt <= $0 }) ?? true {
                compactions.removeFirst()
                let what = compaction.summary.isEmpty ? "compacted on the server" : "compacted into a summary of \(count(compaction.summary.count, "character"))"
                Terminal.line(Terminal.dim("[\(format(compaction.createdAt)): \(count(compaction.messagesBefore, "message")) \(what); "
                                           + "the model sees \(count(compaction.messagesAfter, "message")) and the compaction from here on]"))
                if !compaction.summary.isEmpty { Terminal.line(Terminal.dim("[summary] ") + text(compaction.summary)) }
            }
        }
        for turn in thread.turns {
            showCompactions(before: turn.startedAt)
            if let repair = turn.contextRepair { Terminal.line(Terminal.dim("[note] " + repair.summary)) }
            for message in turn.input {
                Terminal.line(Terminal.bold(label(message.role) + ":") + " " + text(message.text))
                showAttachments(of: message)
            }
            for call in turn.toolCalls {
                Terminal.line(Terminal.dim("[tool] " + Terminal.sanitizedLine("\(call.name)(\(call.arguments)) \(call.status.rawValue)"
                                                                              + (call.output.map { ": \($0)" } ?? ""))))
            }
            if turn.status == .completed {
                Terminal.line(Terminal.bold("assistant:") + " " + text(turn.outputText))
            } else {
                if !turn.outputText.isEmpty { Terminal.line(Terminal.bold("assistant (partial):") + " " + text(turn.outputText)) }
                Terminal.line(Terminal.dim(Terminal.sanitizedLine("[\(turn.status.rawValue) turn \(format(turn.startedAt))] \(turn.failure?.message ?? "")")))
            }
        }
        showCompactions(before: nil)
    }

    private static func resume(_ arguments: ParsedArguments, store: ChappieFileThreadStore, json: Bool) async throws {
        let id = try await resolve(arguments, in: store).id
        let prompt = try ConversationCommands.prompt(from: arguments.positionals.dropFirst(2),
                                                     usage: "threads resume needs a prompt: chappie threads resume ID \"…\"")
        let environment = try await CLIEnvironment.make(arguments)
        defer { Task { await environment.shutdown() } }
        try await AccountCommands.ensureSignedIn(environment, json: json)
        let client = CLIClients.client(configuration: environment.configuration)
        let runtime = client.runtime(store: store)
        try await runtime.resume(threadID: id)
        // The thread brings its own model; an explicit --model switches it, as /model does in chat.
        if let model = arguments.option("model") {
            await CatalogCommands.warnIfUnknownModel(model, client: client, json: json)
            await client.selectModel(model)
        }
        try await streamReply(runtime, .user(prompt, fastMode: arguments.flag("fast")), json: json, raw: arguments.flag("raw"))
        if !json { Terminal.error(Terminal.dim("Saved to thread \(id.uuidString.lowercased()).")) }
    }

    // MARK: Helpers

    /// The thread named by the second positional argument: a full id or a unique prefix of at
    /// least 4 characters (archived threads included). A full id is looked up too, so an unknown
    /// one is the same error as an unknown prefix (and `delete` never reports deleting a thread
    /// that was not there). Throws ``UsageError``, ``ThreadNotFound`` or ``ChappieThreadStoreError``.
    private static func resolve(_ arguments: ParsedArguments, in store: ChappieFileThreadStore) async throws -> ChappieThreadSummary {
        guard arguments.positionals.count >= 2 else { throw UsageError(message: "threads \(arguments.positionals[0]) needs a thread ID: \(usage)") }
        return try await resolve(arguments.positionals[1], in: store)
    }

    /// The thread whose id is `given` or starts with it (at least 4 characters, any case).
    /// Throws ``UsageError`` (too short, or ambiguous), ``ThreadNotFound`` or
    /// ``ChappieThreadStoreError``.
    static func resolve(_ given: String, in store: ChappieFileThreadStore) async throws -> ChappieThreadSummary {
        let text = given.lowercased()
        guard text.count >= 4 else {
            throw UsageError(message: "'\(Terminal.sanitizedLine(given))' is not a thread ID: give the ID or at least its first 4 characters")
        }
        let matches = try await store.threads(includingArchived: true).filter { $0.id.uuidString.lowercased().hasPrefix(text) }
        guard matches.count == 1, let match = matches.first else {
            if matches.isEmpty { throw ThreadNotFound(prefix: text) }
            throw UsageError(message: "'\(text)' matches \(matches.count) threads; give more of the ID")
        }
        return match
    }

    private static func done(_ action: String, id: UUID, json: Bool) {
        if json {
            Terminal.jsonLine(ChappieJSONValue.object(["event": .string(action), "id": .string(id.uuidString.lowercased())]))
        } else {
            Terminal.line("\(action.prefix(1).uppercased() + action.dropFirst()) thread \(id.uuidString.lowercased()).")
        }
    }

    /// `threads list --json`: one object per thread, snake_case keys, lower-case ids.
    private static func summaryJSON(_ thread: ChappieThreadSummary) -> ChappieJSONValue {
        ["id": .string(thread.id.uuidString.lowercased()), "title": .string(thread.title), "model": .string(thread.model),
         "created_at": .string(iso(thread.createdAt)), "updated_at": .string(iso(thread.updatedAt)), "archived": .bool(thread.archived),
         "message_count": .integer(thread.messageCount), "turn_count": .integer(thread.turnCount), "bytes": .integer(thread.byteCount)]
    }

    /// `threads show --json`: the keys of ``summaryJSON(_:)`` plus the transcript's messages, the
    /// turn records and the compaction, in the same style.
    private static func threadJSON(_ thread: ChappieThread, bytes: Int) -> ChappieJSONValue {
        guard case .object(var object) = summaryJSON(ChappieThreadSummary(thread, byteCount: bytes)) else { return .null }
        func messages(_ list: [ChappieInputMessage]) -> ChappieJSONValue {
            .array(list.map { message in
                var object: [String: ChappieJSONValue] = ["role": .string(message.role.rawValue), "text": .string(message.text)]
                if !message.attachments.isEmpty {
                    object["attachments"] = .array(message.attachments.map { attachment in
                        ["mime_type": attachment.mimeType.map(ChappieJSONValue.string) ?? .null, "byte_count": .integer(attachment.byteCount),
                         "url": attachment.url.map { _ in .string(attachment.summary) } ?? .null]
                    })
                }
                return .object(object)
            })
        }
        object["compacted_summary"] = thread.context.compactedSummary.map(ChappieJSONValue.string) ?? .null
        object["messages"] = messages(thread.context.messages)
        object["turns"] = .array(thread.turns.map { turn in
            var entry: [String: ChappieJSONValue] = [
                "id": .string(turn.id.uuidString.lowercased()), "status": .string(turn.status.rawValue),
                "started_at": .string(iso(turn.startedAt)), "ended_at": .string(iso(turn.endedAt)),
                "model": turn.model.map(ChappieJSONValue.string) ?? .null, "response_id": turn.responseID.map(ChappieJSONValue.string) ?? .null,
                "input": messages(turn.input), "output_text": .string(turn.outputText), "partial": .bool(turn.isPartial),
                "tool_calls": .array(turn.toolCalls.map { call in
                    ["call_id": .string(call.callID), "name": .string(call.name), "arguments": .string(call.arguments),
                     "status": .string(call.status.rawValue), "output": call.output.map(ChappieJSONValue.string) ?? .null]
                }),
            ]
            entry["usage"] = turn.usage.map { ["input_tokens": .integer($0.inputTokens), "output_tokens": .integer($0.outputTokens),
                                               "total_tokens": .integer($0.totalTokens)] } ?? .null
            entry["failure"] = turn.failure.map { ["kind": .string($0.kind.rawValue), "message": .string($0.message)] } ?? .null
            if let repair = turn.contextRepair {
                entry["context_repair"] = ["dropped_reasoning_items": .integer(repair.droppedReasoningItems),
                                           "dropped_compaction_items": .integer(repair.droppedCompactionItems)]
            }
            return .object(entry)
        })
        object["compactions"] = .array(thread.compactions.map { compaction in
            ["created_at": .string(iso(compaction.createdAt)), "messages_before": .integer(compaction.messagesBefore),
             "messages_after": .integer(compaction.messagesAfter), "summary": .string(compaction.summary)]
        })
        return .object(object)
    }

    private static func label(_ role: ChappieInputMessage.Role) -> String {
        switch role {
        case .user: "you"
        case .assistant: "assistant"
        case .system: "system"
        case .developer: "developer"
        }
    }

    /// "1 turn", "2 turns".
    static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }

    private static func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    private static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        formatter.locale = Locale(identifier: "en_US_POSIX")
        return formatter.string(from: date)
    }
}

/// No saved thread has an id that starts with the given text: exit status 1 (a failure, not a
/// usage error; the command line was right).
struct ThreadNotFound: Error, LocalizedError {
    /// The id or prefix that was looked for, lower case.
    var prefix: String

    var errorDescription: String? {
        "no thread ID starts with '\(Terminal.sanitizedLine(prefix))'"
    }
}

/// A reply that arrived (and was shown) but could not be stored in its thread: a full disk, a
/// thread changed by another process. Exit status 1.
struct TurnNotSaved: Error, LocalizedError {
    /// Why the store refused the turn.
    var reason: ChappieThreadStoreError

    var errorDescription: String? {
        "the reply was not saved: " + (reason.errorDescription ?? "thread storage failed")
    }
}
