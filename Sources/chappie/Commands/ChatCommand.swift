import ChappieSDK
import ChappieSDKRuntime
import Dispatch
import Foundation

/// `chat`: an interactive conversation, streamed, with `/model`, `/clear`, `/compact`, `/context`.
/// Every turn is saved as a thread (see `chappie threads`).
@MainActor
enum ChatCommand {
    /// Reads prompts line by line until end of input or `/quit`. Throws ``ChappieClientError``.
    static func run(_ arguments: ParsedArguments, _ environment: CLIEnvironment) async throws {
        let json = arguments.flag("json")
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
        let runtime = client.runtime(store: ChappieFileThreadStore())
        let interactive = Terminal.stdinIsTerminal
        if interactive && !json {
            Terminal.line(Terminal.dim("Chat with \(environment.configuration.model). /help for commands, /quit or Ctrl-D to leave."))
        }
        while true {
            if interactive && !json { Terminal.write(Terminal.bold("you> ")) }
            guard let line = await readLine() else { break }
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            if text.hasPrefix("/") {
                if try await handleCommand(text, client: client, runtime: runtime, json: json) { break }
                continue
            }
            try await ThreadCommands.streamReply(runtime, .user(text, fastMode: arguments.flag("fast")), json: json)
        }
        if let thread = await runtime.currentThreadID, interactive, !json {
            Terminal.error(Terminal.dim("Saved to thread \(thread.uuidString.lowercased()); `chappie threads resume` continues it."))
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
                Terminal.line("Model: \(await client.context().model)")
                return false
            }
            await client.selectModel(slug)
            Terminal.line("Model set to \(slug).")
        case "/compact":
            guard await runtime.currentThreadID != nil else {
                Terminal.line("Nothing to compact yet.")
                return false
            }
            let thread = if let argument { try await runtime.compact(summary: argument) } else { try await runtime.compact() }
            Terminal.line("Compacted: \(thread.context.messageCount) messages kept, summary of \(thread.context.compactedSummary?.count ?? 0) characters.")
        case "/context":
            let context = await client.context()
            let size = await client.contextSize(contextWindow: 272_000)
            Terminal.line("Thread \(context.threadID), model \(context.model), \(context.messageCount) messages, about \(size.usedTokens) tokens (\(String(format: "%.1f", size.usedPercent))% of 272k).")
        case "/help":
            Terminal.line("/model [SLUG]  /clear  /compact [SUMMARY]  /context  /quit")
        default:
            Terminal.error("chappie: unknown chat command \(parts[0]); try /help")
        }
        return false
    }

    /// Asks on the terminal whether a `.ask` tool may run (denied when input is not a terminal).
    static func askApproval(_ request: ChappieApprovalRequest) async -> ChappieApprovalDecision {
        guard Terminal.stdinIsTerminal else { return .denied(reason: "No one was there to approve it.") }
        Terminal.error("Allow the tool \(request.call.name)(\(request.call.rawArguments))? [y/N] ")
        let answer = await readLine()?.lowercased() ?? ""
        return answer.hasPrefix("y") ? .approved() : .denied(reason: "The user declined.")
    }

    /// Reads a line from standard input without blocking the cooperative thread pool.
    nonisolated static func readLine() async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Swift.readLine()) }
        }
    }
}
