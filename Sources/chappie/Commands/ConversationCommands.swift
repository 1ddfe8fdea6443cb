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
        let attachments = try arguments.option("image").map(images) ?? []
        try await AccountCommands.ensureSignedIn(environment, json: json)
        let client = CLIClients.client(configuration: environment.configuration)
        if let model = arguments.option("model") { await CatalogCommands.warnIfUnknownModel(model, client: client, json: json) }
        var options = ChappieMessageOptions(fastMode: arguments.flag("fast"))
        if arguments.flag("web-search") { options.webSearch = true }
        try await streamReply(client, .user(prompt, attachments: attachments, options: options), json: json, raw: arguments.flag("raw"))
    }

    /// The images named by `--image` (comma-separated paths, as `codex exec --image` takes them),
    /// typed by their file extension. Throws ``UsageError`` for a file that cannot be read or an
    /// extension that is not an image type the backend takes.
    static func images(_ paths: String) throws -> [ChappieAttachment] {
        let list = paths.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard !list.contains(where: \.isEmpty) else { throw UsageError(message: "--image needs a file path (PATH[,PATH…])", command: "ask") }
        return try list.map { path in
            let url = URL(fileURLWithPath: path)
            // Named without anything after a "?": a pasted signed URL's query is a secret.
            let name = Terminal.sanitizedLine(String(url.lastPathComponent.prefix { $0 != "?" }))
            let types = ["png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"]
            guard let type = types[url.pathExtension.lowercased()] else {
                throw UsageError(message: "--image \(name): not a .png, .jpg, .gif or .webp file", command: "ask")
            }
            guard let data = try? Data(contentsOf: url) else {
                throw UsageError(message: "--image \(name): cannot be read", command: "ask")
            }
            return .image(data: data, mimeType: type)
        }
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
                    printer.completed(responseID: response.id, text: response.outputText, usage: response.usage, transport: response.transport,
                                      citations: response.citations)
                case .toolCallRequested(let request):
                    printer.toolCall(name: request.call.name, callID: request.call.callID, arguments: request.call.rawArguments)
                case .toolCallCompleted(let result):
                    printer.toolResult(name: result.call.name, callID: result.call.callID, status: result.status.rawValue, output: result.output)
                case .contextRepaired(let repair):
                    printer.contextRepaired(repair)
                case .webSearch(let call):
                    printer.webSearch(call)
                case .reasoningSummaryDelta, .usageLimits, .approvalRequested:
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
