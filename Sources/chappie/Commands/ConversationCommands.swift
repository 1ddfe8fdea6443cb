import ChappieSDK
import Foundation

/// `ask`: one prompt, the reply streamed to standard output.
@MainActor
enum ConversationCommands {
    /// Sends the prompt from the arguments or standard input and streams the reply.
    /// Throws ``UsageError`` for an empty prompt or one that is not text, ``ChappieClientError``
    /// otherwise.
    static func ask(_ arguments: ParsedArguments, _ environment: CLIEnvironment) async throws {
        let prompt = try prompt(from: arguments.positionals,
                                usage: "ask needs a prompt: chappie ask \"…\" or echo … | chappie ask")
        let json = arguments.flag("json")
        try await AccountCommands.ensureSignedIn(environment, json: json)
        let client = Chappie.client(configuration: environment.configuration)
        if let model = arguments.option("model") { await CatalogCommands.warnIfUnknownModel(model, client: client, json: json) }
        try await streamReply(client, .user(prompt, fastMode: arguments.flag("fast")), json: json, raw: arguments.flag("raw"))
    }

    /// The prompt: `words` joined, or else standard input when it is not a terminal, trimmed.
    /// Throws ``UsageError`` with `usage` when it is empty, and when standard input is not UTF-8
    /// text (binary data, a NUL byte): it is refused rather than sent garbled.
    static func prompt(from words: some Sequence<String>, usage: String) throws -> String {
        var prompt = words.joined(separator: " ")
        if prompt.isEmpty, !Terminal.stdinIsTerminal {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            guard !data.contains(0), let text = String(data: data, encoding: .utf8) else {
                throw UsageError(message: "standard input is not UTF-8 text (\(data.count) bytes); pipe a text prompt")
            }
            prompt = text
        }
        prompt = prompt.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !prompt.isEmpty else { throw UsageError(message: usage) }
        return prompt
    }

    /// Streams one reply to standard output (or JSON lines). Throws ``ChappieClientError``.
    static func streamReply(_ client: ChappieClient, _ message: ChappieInputMessage, json: Bool, raw: Bool = false) async throws {
        var printer = ReplyPrinter(json: json, raw: raw)
        do {
            for try await event in client.stream(message) {
                switch event {
                case .textDelta(let text):
                    printer.text(text)
                case .completed(let response):
                    printer.completed(responseID: response.id, text: response.outputText, usage: response.usage, transport: response.transport)
                case .toolCallRequested(let request):
                    printer.toolCall(name: request.call.name, callID: request.call.callID, arguments: request.call.rawArguments)
                case .toolCallCompleted(let result):
                    printer.toolResult(name: result.call.name, callID: result.call.callID, status: result.status.rawValue, output: result.output)
                case .reasoningSummaryDelta, .usageLimits, .approvalRequested, .webSearch:
                    break
                }
            }
        } catch {
            printer.interrupted()
            throw error
        }
        if Task.isCancelled { printer.interrupted() }
    }
}
