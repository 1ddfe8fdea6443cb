import ChappieSDK
import ChappieSDKRuntime
import Foundation

/// `chat`: an interactive conversation, streamed, with `/model`, `/clear`, `/compact`, `/context`.
/// Every turn is saved as a thread (see `chappie threads`).
///
/// Ctrl-C during a turn (or a slash command that talks to the server) cancels only that; the turn
/// is saved as cancelled and the next prompt is sent normally. Ctrl-C at the prompt clears the
/// line, as a shell does. Ctrl-D (end of input) or `/quit` leaves with status 0. With standard
/// input not a terminal, Ctrl-C at the prompt stops the chat (status 130).
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
        let client = Chappie.client(configuration: environment.configuration, harness: harness, tools: tools,
                                    toolApprovalHandler: { request in await askApproval(request) })
        let runtime = client.runtime(store: ThreadCommands.store())
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
            Terminal.write("\n" + (prompt ?? ""))
            return true
        }
        InterruptRouter.shared.setHandler(idle)
        defer { InterruptRouter.shared.setHandler(nil) }
        while true {
            if let prompt { Terminal.write(prompt) }
            guard let line = await StandardInputLines.shared.next() else {
                if prompt != nil { Terminal.line() }
                break
            }
            guard case .text(let entered) = line else {
                if case .notText(let bytes) = line { Terminal.error("chappie: skipped a line that is not UTF-8 text (\(bytes) bytes)") }
                continue
            }
            let text = entered.trimmingCharacters(in: .whitespaces)
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
            }
        }
        if let thread = await runtime.currentThreadID, interactive, !json {
            Terminal.error(Terminal.dim("Saved to thread \(thread.uuidString.lowercased()); `\(Invocation.command) threads resume` continues it."))
        }
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

    /// Runs a slash command; returns true to leave the chat.
    private static func handleCommand(_ text: String, client: ChappieClient, runtime: ChappieRuntime, json: Bool) async throws -> Bool {
        let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
        let argument = parts.count > 1 ? parts[1] : nil
        switch parts[0] {
        case "/quit", "/exit":
            return true
        case "/clear":
            await runtime.startNewThread()
            Terminal.line("Started a new conversation.")
        case "/model":
            guard let slug = argument else {
                Terminal.line("Model: " + Terminal.sanitizedLine(await client.context().model))
                return false
            }
            await CatalogCommands.warnIfUnknownModel(slug, client: client, json: json)
            await client.selectModel(slug)
            Terminal.line("Model set to \(Terminal.sanitizedLine(slug)).")
        case "/compact":
            guard await runtime.currentThreadID != nil else {
                Terminal.line("Nothing to compact yet.")
                return false
            }
            let before = await client.context().messageCount
            let thread = if let argument { try await runtime.compact(summary: argument) } else { try await runtime.compact() }
            Terminal.line(compactionReport(thread.context, messagesBefore: before))
        case "/context":
            let context = await client.context()
            let size = await client.contextSize(contextWindow: 272_000)
            let thread = await runtime.currentThreadID.map { "Thread \($0.uuidString.lowercased())" } ?? "Not saved yet"
            Terminal.line("\(thread), model \(Terminal.sanitizedLine(context.model)), \(ThreadCommands.count(context.messageCount, "message")), "
                          + "about \(size.usedTokens) tokens (\(String(format: "%.1f", size.usedPercent))% of 272k).")
        case "/help":
            Terminal.line("/model [SLUG]  /clear  /compact [SUMMARY]  /context  /quit")
        default:
            Terminal.error("chappie: unknown chat command \(Terminal.sanitizedLine(parts[0])); try /help")
        }
        return false
    }

    /// What a compaction did, in words: the server's opaque compaction, or a summary's length.
    static func compactionReport(_ context: ChappieClientContext, messagesBefore: Int) -> String {
        let onServer = context.transcript.contains { if case .compaction = $0 { true } else { false } }
        let kept = ThreadCommands.count(context.messageCount, "message")
        if onServer, context.compactedSummary == nil {
            return "Compacted on the server: \(ThreadCommands.count(messagesBefore, "message")) became an encrypted summary; \(kept) kept."
        }
        let summary = ThreadCommands.count(context.compactedSummary?.count ?? 0, "character")
        return "Compacted: \(ThreadCommands.count(messagesBefore, "message")) became a summary of \(summary); \(kept) kept."
    }

    /// Asks on the terminal whether a `.ask` tool may run (denied when input is not a terminal).
    static func askApproval(_ request: ChappieApprovalRequest) async -> ChappieApprovalDecision {
        guard Terminal.stdinIsTerminal else { return .denied(reason: "No one was there to approve it.") }
        Terminal.error("Allow the tool " + Terminal.sanitizedLine("\(request.call.name)(\(request.call.rawArguments))") + "? [y/N] ")
        guard case .text(let answer)? = await StandardInputLines.shared.next() else { return .denied(reason: "The user declined.") }
        return answer.lowercased().hasPrefix("y") ? .approved() : .denied(reason: "The user declined.")
    }
}
