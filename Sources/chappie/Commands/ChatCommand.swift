import ChappieSDK
import ChappieSDKRuntime
import Foundation

/// `chat`: an interactive conversation, streamed, with `/model`, `/clear`, `/compact`, `/context`.
/// Every turn is saved as a thread (see `chappie threads`); `--thread ID` continues a saved one.
/// On a terminal the line is edited in place (``LineEditor``: arrows, history, Backspace).
///
/// Ctrl-C during a turn (or a slash command that talks to the server) cancels only that; the turn
/// is saved as cancelled and the next prompt is sent normally. Ctrl-C at the prompt clears the
/// line, as a shell does. Ctrl-D (end of input) or `/quit` leaves with status 0. With standard
/// input not a terminal, Ctrl-C at the prompt stops the chat (status 130).
///
/// A network or server error ends only the turn (or slash command) it happened in: it is reported
/// as `ask` reports it and the chat goes on. An error that needs sign-in, or a reached usage
/// limit, ends the chat with its exit status (3 or 4).
@MainActor
enum ChatCommand {
    /// Reads prompts line by line until end of input or `/quit`. Throws ``ChappieClientError``.
    static func run(_ arguments: ParsedArguments, _ environment: CLIEnvironment) async throws {
        let json = arguments.flag("json")
        let raw = arguments.flag("raw")
        try await AccountCommands.ensureSignedIn(environment, json: json)
        var harness: ChappieHarness?
        var tools: [ChappieHostTool] = []
        switch arguments.option("sample") {
        case nil: break
        case "inventory":
            harness = ChappieHarnessSamples.inventory
            var tool = DemoTools.lookupStock
            tool.policy = .ask
            tools = [tool]
        case let other?: throw UsageError(message: "unknown sample '\(other)' (known: inventory)")
        }
        let client = CLIClients.client(configuration: environment.configuration, harness: harness, tools: tools,
                                    toolApprovalHandler: { request in await askApproval(request) })
        let store = ThreadCommands.store()
        let runtime = client.runtime(store: store)
        if let given = arguments.option("thread") {
            // Continue a saved thread: its messages go with the next prompt, its model too.
            let thread = try await runtime.resume(threadID: try await ThreadCommands.resolve(given, in: store).id)
            if !json {
                Terminal.line(Terminal.dim("Continuing \"\(Terminal.sanitizedLine(thread.title))\" (\(ThreadCommands.count(thread.turns.count, "turn")) so far)."))
            }
        }
        if let model = arguments.option("model") { await CatalogCommands.warnIfUnknownModel(model, client: client, json: json) }
        let interactive = Terminal.stdinIsTerminal
        let prompt = interactive && !json ? Terminal.bold("you> ") : nil
        if prompt != nil {
            Terminal.line(Terminal.dim("Chat with \(environment.configuration.model). /help for commands, /quit or Ctrl-D to leave."))
        }
        // Between turns, Ctrl-C clears the line: the terminal already dropped what was typed, so
        // a fresh prompt is all that is left to show. Set before the first prompt appears, and
        // restored after each turn, so there is no moment in which Ctrl-C ends the chat.
        let idle: @Sendable () -> Bool = {
            guard interactive else { return false }
            StandardInputLines.shared.discardLine()
            Terminal.write("\n" + (prompt ?? ""))
            return true
        }
        InterruptRouter.shared.setHandler(idle)
        defer { InterruptRouter.shared.setHandler(nil) }
        // On a terminal, lines are edited (arrows, history) in raw mode; restored when chat ends.
        if prompt != nil { _ = StandardInputLines.shared.startEditing() }
        defer { StandardInputLines.shared.stopEditing() }
        while true {
            if let prompt { Terminal.write(prompt) }
            guard let line = await StandardInputLines.shared.next(prompt: prompt ?? "") else {
                if prompt != nil { Terminal.line() }
                break
            }
            guard case .text(let entered) = line else {
                if case .notText(let bytes) = line { Terminal.error("chappie: skipped a line that is not UTF-8 text (\(bytes) bytes)") }
                continue
            }
            // Escape sequences (an arrow key where the terminal does not edit) and control
            // characters are not text: a line of nothing else is not sent.
            let text = Terminal.sanitizedLine(entered).trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            do {
                if text.hasPrefix("/") {
                    let quit = try await interruptible(restoring: idle) {
                        try await handleCommand(text, client: client, runtime: runtime, json: json)
                    }
                    if quit == true { break }
                    continue
                }
                _ = try await interruptible(restoring: idle) {
                    try await ThreadCommands.streamReply(runtime, .user(text, fastMode: arguments.flag("fast")), json: json, raw: raw)
                }
            } catch let error as TurnNotSaved {
                // The reply was shown; the conversation goes on (the next turn saves its messages).
                _ = ChappieCommand.report(error, json: json)
            } catch where goesOn(after: error) {
                // A network or server error ends only this turn: said as `ask` says it, then the
                // next prompt.
                _ = ChappieCommand.report(error, json: json)
            }
        }
        if let thread = await runtime.currentThreadID, interactive, !json {
            let id = thread.uuidString.lowercased()
            Terminal.error(Terminal.dim("Saved to thread \(id); `\(Invocation.command) chat --thread \(id.prefix(8))` continues it."))
        }
    }

    /// True when the chat goes on after `error` ended a turn or a slash command: anything but an
    /// error that needs sign-in, a reached usage limit, or the whole command being cancelled
    /// (those end the chat with their exit status).
    static func goesOn(after error: any Error) -> Bool {
        guard !Task.isCancelled else { return false }
        return ![.signInNeeded, .usageLimit, .interrupted].contains(ChappieCommand.describe(error).status)
    }

    /// Runs `body` so that Ctrl-C cancels it alone, then makes `idle` the Ctrl-C handler again;
    /// returns its result, or nil when it was interrupted (then says so). Cancelling the whole
    /// command cancels `body` too and is rethrown; other errors are rethrown.
    static func interruptible<Value: Sendable>(restoring idle: @escaping @Sendable () -> Bool,
                                               _ body: @escaping @MainActor () async throws -> Value) async throws -> Value? {
        let task = Task { @MainActor in try await body() }
        InterruptRouter.shared.setHandler {
            task.cancel()
            return true
        }
        defer { InterruptRouter.shared.setHandler(idle) }
        do {
            return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        } catch is CancellationError where !Task.isCancelled {
            Terminal.error(Terminal.dim("Interrupted."))
            return nil
        }
    }

    /// Runs a slash command; returns true to leave the chat. Says what it did in a line of text,
    /// or with `json` in one JSON object (`context`, `model`, `cleared`, `compacted`,
    /// `nothing_to_compact`, `help`; an unknown command is an `error` object, as every error).
    private static func handleCommand(_ text: String, client: ChappieClient, runtime: ChappieRuntime, json: Bool) async throws -> Bool {
        let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
        let argument = parts.count > 1 ? parts[1] : nil
        /// Prints `line`, or with `json` the object `fields` plus its `event`.
        func say(_ line: @autoclosure () -> String, event: String, _ fields: [String: ChappieJSONValue] = [:]) {
            guard json else { return Terminal.line(line()) }
            Terminal.jsonLine(ChappieJSONValue.object(fields.merging(["event": .string(event)]) { _, event in event }))
        }
        switch parts[0] {
        case "/quit", "/exit":
            return true
        case "/clear":
            await runtime.startNewThread()
            say("Started a new conversation.", event: Wire.cleared)
        case "/model":
            guard let slug = argument else {
                let model = await client.context().model
                say("Model: " + Terminal.sanitizedLine(model), event: Wire.model, [Wire.modelKey: .string(model)])
                return false
            }
            await CatalogCommands.warnIfUnknownModel(slug, client: client, json: json)
            await client.selectModel(slug)
            say("Model set to \(Terminal.sanitizedLine(slug)).", event: Wire.model, [Wire.modelKey: .string(slug)])
        case "/compact":
            guard await runtime.currentThreadID != nil else {
                say("Nothing to compact yet.", event: Wire.nothingToCompact)
                return false
            }
            let before = await client.context().messageCount
            let thread = if let argument { try await runtime.compact(summary: argument) } else { try await runtime.compact() }
            let context = thread.context
            say(compactionReport(context, messagesBefore: before), event: Wire.compacted, [
                "thread_id": .string(thread.id.uuidString.lowercased()), "messages_before": .integer(before),
                "messages_kept": .integer(context.messageCount), "on_server": .bool(compactedOnServer(context)),
                "summary": context.compactedSummary.map(ChappieJSONValue.string) ?? .null,
            ])
        case "/context":
            let context = await client.context()
            let size = await client.contextSize(contextWindow: Wire.contextWindow)
            let threadID = await runtime.currentThreadID?.uuidString.lowercased()
            let thread = threadID.map { "Thread \($0)" } ?? "Not saved yet"
            say("\(thread), model \(Terminal.sanitizedLine(context.model)), \(ThreadCommands.count(context.messageCount, "message")), "
                + "about \(size.usedTokens) tokens (\(String(format: "%.1f", size.usedPercent))% of \(Wire.contextWindow / 1000)k).", event: Wire.context, [
                    "thread_id": threadID.map(ChappieJSONValue.string) ?? .null, Wire.modelKey: .string(context.model),
                    "message_count": .integer(context.messageCount), "used_tokens": .integer(size.usedTokens),
                    "used_percent": .number(size.usedPercent), "context_window": .integer(Wire.contextWindow),
                ])
        case "/help":
            say(Wire.commands.joined(separator: "  "), event: Wire.help, ["commands": .array(Wire.commands.map(ChappieJSONValue.string))])
        default:
            let error = UsageError(message: "unknown chat command \(parts[0]); try /help")
            if json {
                _ = ChappieCommand.report(error, json: true)
            } else {
                Terminal.error("chappie: " + Terminal.sanitizedLine(error.message))
            }
        }
        return false
    }

    /// What a compaction did, in words: the server's opaque compaction, or a summary's length.
    static func compactionReport(_ context: ChappieClientContext, messagesBefore: Int) -> String {
        let kept = ThreadCommands.count(context.messageCount, "message")
        if compactedOnServer(context) {
            return "Compacted on the server: \(ThreadCommands.count(messagesBefore, "message")) became an encrypted summary; \(kept) kept."
        }
        let summary = ThreadCommands.count(context.compactedSummary?.count ?? 0, "character")
        return "Compacted: \(ThreadCommands.count(messagesBefore, "message")) became a summary of \(summary); \(kept) kept."
    }

    /// True when `context` was compacted on the server: an encrypted compaction item and no
    /// summary text of Chappie's own.
    static func compactedOnServer(_ context: ChappieClientContext) -> Bool {
        context.compactedSummary == nil && context.transcript.contains { if case .compaction = $0 { true } else { false } }
    }

    /// Asks on the terminal whether a `.ask` tool may run (denied when input is not a terminal).
    static func askApproval(_ request: ChappieApprovalRequest) async -> ChappieApprovalDecision {
        guard Terminal.stdinIsTerminal else { return .denied(reason: "No one was there to approve it.") }
        let question = "Allow the tool " + Terminal.sanitizedLine("\(request.call.name)(\(request.call.rawArguments))") + "? [y/N] "
        // While lines are edited the answer is typed after the question, on its line.
        let editing = StandardInputLines.shared.isEditing
        if editing { Terminal.write(question) } else { Terminal.error(question) }
        guard case .text(let answer)? = await StandardInputLines.shared.next(prompt: editing ? question : "") else {
            return .denied(reason: "The user declined.")
        }
        return answer.lowercased().hasPrefix("y") ? .approved() : .denied(reason: "The user declined.")
    }
}

/// The `--json` vocabulary of chat's slash commands.
private enum Wire {
    static let context = "context"
    static let model = "model"
    static let cleared = "cleared"
    static let compacted = "compacted"
    static let nothingToCompact = "nothing_to_compact"
    static let help = "help"
    static let modelKey = "model"
    /// The context window `/context` measures against, in tokens.
    static let contextWindow = 272_000
    /// The slash commands `/help` lists.
    static let commands = ["/model [SLUG]", "/clear", "/compact [SUMMARY]", "/context", "/quit"]
}
