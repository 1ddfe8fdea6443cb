import ChappieSDK
import Foundation

/// Prints one streamed reply: text to standard output as it arrives, tool calls as dim lines, or
/// with `--json` one JSON object per line (`text_delta`, `tool_call`, `tool_result`,
/// `context_repaired`, `completed`).
/// Shared by `ask` (client events) and `chat`, `demo` and `threads resume` (runtime events).
///
/// Model text passes through a streaming ``TerminalSanitizer`` (unless `raw`), so control
/// characters and escape sequences never reach the terminal, even split across two deltas; each
/// delta costs time linear in its own length. Tool names, arguments and output are always
/// sanitized. JSON output needs neither: JSON escapes control characters.
@MainActor
struct ReplyPrinter {
    let json: Bool
    /// Model text is printed as it came (`--raw`).
    let raw: Bool
    private var sanitizer = TerminalSanitizer()
    private var endedWithNewline = true
    /// "Waiting for the server (N s)" on a terminal until the reply's first event.
    private let waiting = ProgressLine()

    /// A printer for one reply; on a terminal (not with `json`) it shows that it waits for the
    /// server until the reply's first event.
    init(json: Bool, raw: Bool = false) {
        self.json = json
        self.raw = raw
        if !json { waiting.startWaiting("Waiting for the server") }
    }

    /// A piece of the reply's text.
    mutating func text(_ text: String) {
        waiting.stop()
        if json {
            Terminal.jsonLine(ChappieJSONValue.object(["event": "text_delta", "text": .string(text)]))
        } else {
            let shown = raw ? text : sanitizer.feed(text)
            guard !shown.isEmpty else { return }
            Terminal.write(shown)
            endedWithNewline = shown.hasSuffix("\n")
        }
    }

    /// The model asked for a host tool.
    mutating func toolCall(name: String, callID: String, arguments: String) {
        waiting.stop()
        if json {
            Terminal.jsonLine(ChappieJSONValue.object(["event": "tool_call", "name": .string(name), "call_id": .string(callID),
                                                   "arguments": .string(arguments)]))
        } else {
            endLine()
            Terminal.line(Terminal.dim("[tool] " + Terminal.sanitizedLine("\(name)(\(arguments))")))
        }
    }

    /// A host tool finished (completed, failed, denied or cancelled).
    mutating func toolResult(name: String, callID: String, status: String, output: String) {
        waiting.stop()
        if json {
            Terminal.jsonLine(ChappieJSONValue.object(["event": "tool_result", "call_id": .string(callID), "status": .string(status),
                                                   "output": .string(output)]))
        } else {
            endLine()
            Terminal.line(Terminal.dim("[tool] " + Terminal.sanitizedLine("\(name) \(status): \(output)")))
        }
    }

    /// The conversation's unreadable opaque items were dropped and the message sent again.
    mutating func contextRepaired(_ repair: ChappieContextRepair) {
        waiting.stop()
        if json {
            Terminal.jsonLine(ChappieJSONValue.object([
                "event": "context_repaired", "dropped_reasoning_items": .integer(repair.droppedReasoningItems),
                "dropped_compaction_items": .integer(repair.droppedCompactionItems),
            ]))
        } else {
            endLine()
            Terminal.line(Terminal.dim("[note] " + repair.summary))
        }
        waiting.startWaiting("Waiting for the server")
    }

    /// A web search step: shown when it starts ("[web search] swift 6.2", "[open] https://…"),
    /// and as a `web_search` JSON line when it starts and when it finishes.
    mutating func webSearch(_ call: ChappieWebSearchCall) {
        let (kind, detail): (String, String) = switch call.action {
        case .search(let query): ("search", query ?? "")
        case .openPage(let url): ("open_page", url ?? "")
        case .findInPage(let url, let pattern): ("find_in_page", [pattern, url].compactMap { $0 }.joined(separator: " in "))
        case .other(let other): (other, "")
        }
        if json {
            Terminal.jsonLine(["event": "web_search", "id": .string(call.id), "status": .string(call.status), "action": .string(kind),
                               "detail": .string(detail)])
            return
        }
        guard !call.isFinished else { return }
        waiting.stop()
        endLine()
        let label = kind == "search" ? "web search" : kind == "open_page" ? "open" : kind.replacingOccurrences(of: "_", with: " ")
        Terminal.line(Terminal.dim("[" + Terminal.sanitizedLine(label) + "] " + Terminal.sanitizedLine(detail)))
        waiting.startWaiting("Waiting for the server")
    }

    /// The reply is complete; `threadID` is the thread it was saved to, if any; `citations` the
    /// sources it cited (listed after the text, or in the `completed` JSON line).
    mutating func completed(responseID: String?, text: String, usage: ChappieTokenUsage?, threadID: String? = nil,
                            transport: ChappieStreamingTransport? = nil, citations: [ChappieURLCitation] = []) {
        waiting.stop()
        guard json else {
            endLine()
            for citation in citations {
                Terminal.line(Terminal.dim("[source] " + Terminal.sanitizedLine(citation.title.isEmpty ? citation.url : "\(citation.title) <\(citation.url)>")))
            }
            return
        }
        var object: [String: ChappieJSONValue] = ["event": "completed", "id": responseID.map(ChappieJSONValue.string) ?? .null,
                                                  "text": .string(text)]
        if let threadID { object["thread_id"] = .string(threadID) }
        if let transport { object["transport"] = .string(transport.rawValue) }
        if !citations.isEmpty {
            object["citations"] = .array(citations.map { ["url": .string($0.url), "title": .string($0.title)] })
        }
        if let usage {
            object["usage"] = ["input_tokens": .integer(usage.inputTokens), "output_tokens": .integer(usage.outputTokens),
                               "total_tokens": .integer(usage.totalTokens)]
        }
        Terminal.jsonLine(ChappieJSONValue.object(object))
    }

    /// Ends a reply that stopped early (a cancelled or failed turn): the text so far gets its
    /// line end, and an unfinished escape sequence is dropped.
    mutating func interrupted() {
        waiting.stop()
        guard !json else { return }
        endLine()
    }

    /// Finishes the current line of text, if one is open.
    private mutating func endLine() {
        sanitizer.finish()
        if !endedWithNewline {
            Terminal.line()
            endedWithNewline = true
        }
    }
}
