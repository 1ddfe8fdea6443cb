import ChappieSDK
import Foundation

/// `ask`: one prompt, the reply streamed to standard output.
@MainActor
enum ConversationCommands {
    /// Sends the prompt from the arguments or standard input and streams the reply.
    /// Throws ``UsageError`` for an empty prompt, ``ChappieClientError`` otherwise.
    static func ask(_ arguments: ParsedArguments, _ environment: CLIEnvironment) async throws {
        var prompt = arguments.positionals.joined(separator: " ")
        if prompt.isEmpty, !Terminal.stdinIsTerminal {
            prompt = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        }
        prompt = prompt.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !prompt.isEmpty else { throw UsageError(message: "ask needs a prompt: chappie ask \"…\" or echo … | chappie ask") }
        let json = arguments.flag("json")
        try await AccountCommands.ensureSignedIn(environment, json: json)
        let client = Chappie.client(configuration: environment.configuration)
        try await streamReply(client, .user(prompt, fastMode: arguments.flag("fast")), json: json)
    }

    /// Streams one reply to standard output (or JSON lines). Throws ``ChappieClientError``.
    static func streamReply(_ client: ChappieClient, _ message: ChappieInputMessage, json: Bool) async throws {
        var endedWithNewline = true
        for try await event in client.stream(message) {
            switch event {
            case .textDelta(let text):
                if json {
                    Terminal.line(ChappieJSONValue.object(["event": "text_delta", "text": .string(text)]).jsonString)
                } else {
                    Terminal.write(text)
                    endedWithNewline = text.hasSuffix("\n")
                }
            case .completed(let response):
                if json {
                    var object: [String: ChappieJSONValue] = ["event": "completed", "id": .string(response.id), "text": .string(response.outputText)]
                    if let usage = response.usage {
                        object["usage"] = ["input_tokens": .integer(usage.inputTokens), "output_tokens": .integer(usage.outputTokens),
                                           "total_tokens": .integer(usage.totalTokens)]
                    }
                    Terminal.line(ChappieJSONValue.object(object).jsonString)
                } else if !endedWithNewline {
                    Terminal.line()
                }
            case .toolCallRequested(let request):
                if json {
                    Terminal.line(ChappieJSONValue.object(["event": "tool_call", "name": .string(request.call.name),
                                                           "call_id": .string(request.call.callID), "arguments": .string(request.call.rawArguments)]).jsonString)
                } else {
                    if !endedWithNewline { Terminal.line(); endedWithNewline = true }
                    Terminal.line(Terminal.dim("[tool] \(request.call.name)(\(request.call.rawArguments))"))
                }
            case .toolCallCompleted(let result):
                if json {
                    Terminal.line(ChappieJSONValue.object(["event": "tool_result", "call_id": .string(result.call.callID),
                                                           "status": .string(result.status.rawValue), "output": .string(result.output)]).jsonString)
                } else {
                    Terminal.line(Terminal.dim("[tool] \(result.call.name) \(result.status.rawValue): \(result.output)"))
                }
            case .reasoningSummaryDelta, .usageLimits, .approvalRequested:
                break
            }
        }
    }
}
