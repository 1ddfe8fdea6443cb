import ChappieSDK
import Foundation

/// The shape of format 3 thread files (DESIGN §5): a snapshot or a journal record holds each
/// message and output item once, where format 2 held a reply three times (the transcript item,
/// the turn's output item, the turn's output text) and a user message twice.
///
/// A turn keeps what the server and the runtime reported (its input messages, the response's
/// output items as sent, its tool calls, and the text shown when it did not complete), and the
/// transcript refers to those instead of repeating them: a transcript item that one of the file's
/// turns can rebuild exactly is written as a ``Reference``, any other item as itself. The turns
/// are the history and only grow (compaction, resuming and context repair change the transcript,
/// never the turns), so a reference never dangles: it names a turn of the same snapshot, or of
/// the same journal record, and a record decodes without the thread it applies to. A reference
/// is written only after checking that it rebuilds an item equal to the one it stands for, so a
/// thread reads back equal to what was written.
///
/// Fields equal to others are written once: the transcript's model, creation and update dates
/// only when they differ from the thread's, a turn's output text only when it differs from the
/// text of its output items, and a record's update date only when it differs from the end of its
/// last turn. Empty collections and strings are left out.
enum ThreadFormat {
    /// The format version these shapes are.
    static let version = 3

    // MARK: References

    /// Where in a list of turns a transcript item can be rebuilt from.
    enum Reference: Hashable {
        /// `.message(turns[turn].input[index])`.
        case input(turn: Int, index: Int)
        /// What the output item `turns[turn].items[index]` becomes in a transcript, its message
        /// (if any) with `citations`.
        case output(turn: Int, index: Int, citations: [ChappieURLCitation])
        /// The call `turns[turn].toolCalls[index]` as a transcript function call.
        case call(turn: Int, index: Int)
        /// The output of the call `turns[turn].toolCalls[index]`.
        case callOutput(turn: Int, index: Int)
        /// The turn's output text as an assistant message: its reply, or (`partial`) the text
        /// shown before a turn that did not complete ended.
        case reply(turn: Int, partial: Bool)

        /// The item this reference stands for, or nil when `turns` cannot give it (damage).
        func item(in turns: [ChappieThreadTurn]) -> ChappieTranscriptItem? {
            switch self {
            case .input(let turn, let index):
                guard let turn = turns.element(at: turn), let message = turn.input.element(at: index) else { return nil }
                return .message(message)
            case .output(let turn, let index, let citations):
                guard let raw = turns.element(at: turn)?.items.element(at: index),
                      var item = ThreadFormat.transcriptItem(fromOutput: raw) else { return nil }
                if !citations.isEmpty {
                    guard case .message(var message) = item else { return nil }
                    message.citations = citations
                    item = .message(message)
                }
                return item
            case .call(let turn, let index):
                guard let call = turns.element(at: turn)?.toolCalls.element(at: index) else { return nil }
                return .functionCall(ChappieFunctionCall(callID: call.callID, name: call.name, arguments: call.arguments))
            case .callOutput(let turn, let index):
                guard let call = turns.element(at: turn)?.toolCalls.element(at: index), let output = call.output else { return nil }
                return .functionCallOutput(callID: call.callID, output: output)
            case .reply(let turn, let partial):
                guard let turn = turns.element(at: turn), !turn.outputText.isEmpty else { return nil }
                return .message(ChappieInputMessage(role: .assistant, text: turn.outputText, isPartial: partial))
            }
        }
    }

    /// The transcript items a list of turns can rebuild, to write references instead of copies.
    struct References {
        private var found: [ChappieTranscriptItem: Reference] = [:]

        /// The items `turns` can rebuild; references count turns from `turns`' first one.
        init(_ turns: [ChappieThreadTurn]) {
            for (turnIndex, turn) in turns.enumerated() {
                for (index, message) in turn.input.enumerated() { add(.message(message), .input(turn: turnIndex, index: index)) }
                for (index, raw) in turn.items.enumerated() {
                    if let item = ThreadFormat.transcriptItem(fromOutput: raw) {
                        add(item, .output(turn: turnIndex, index: index, citations: []))
                    }
                }
                for (index, call) in turn.toolCalls.enumerated() {
                    add(.functionCall(ChappieFunctionCall(callID: call.callID, name: call.name, arguments: call.arguments)),
                        .call(turn: turnIndex, index: index))
                    if let output = call.output {
                        add(.functionCallOutput(callID: call.callID, output: output), .callOutput(turn: turnIndex, index: index))
                    }
                }
                if !turn.outputText.isEmpty {
                    for partial in [false, true] {
                        add(.message(ChappieInputMessage(role: .assistant, text: turn.outputText, isPartial: partial)),
                            .reply(turn: turnIndex, partial: partial))
                    }
                }
            }
        }

        private mutating func add(_ item: ChappieTranscriptItem, _ reference: Reference) {
            if found[item] == nil { found[item] = reference }
        }

        /// A reference that rebuilds `item` exactly, or nil when the turns hold no such item.
        func reference(for item: ChappieTranscriptItem) -> Reference? {
            if let reference = found[item] { return reference }
            // A reply that cites pages: the output item's text, with the citations written beside it.
            if case .message(var message) = item, !message.citations.isEmpty {
                let citations = message.citations
                message.citations = []
                if case .output(let turn, let index, _)? = found[.message(message)] {
                    return .output(turn: turn, index: index, citations: citations)
                }
            }
            return nil
        }
    }

    /// What a server output item becomes in a transcript, the way format 3 defines it (fixed, so
    /// files written today read the same later): a message's role and the text of its parts (no
    /// citations), a function call's id, name and arguments, a reasoning or compaction item as it
    /// is. Nil for other kinds.
    static func transcriptItem(fromOutput raw: ChappieJSONValue) -> ChappieTranscriptItem? {
        switch raw["type"]?.stringValue {
        case "message":
            let text = (raw["content"]?.arrayValue ?? []).compactMap { $0["text"]?.stringValue }.joined()
            let role: ChappieInputMessage.Role = switch raw["role"]?.stringValue {
            case "user": .user
            case "developer": .developer
            case "system": .system
            default: .assistant
            }
            return .message(ChappieInputMessage(role: role, text: text))
        case "function_call":
            guard let callID = raw["call_id"]?.stringValue, let name = raw["name"]?.stringValue else { return nil }
            return .functionCall(ChappieFunctionCall(callID: callID, name: name, arguments: raw["arguments"]?.stringValue ?? ""))
        case "reasoning":
            return .reasoning(raw)
        case "compaction", "compaction_summary":
            return .compaction(raw)
        default:
            return nil
        }
    }

    /// The text of the assistant messages among `items`, in order: what a completed turn's
    /// output text usually is, so it is written only when it differs.
    static func outputText(of items: [ChappieJSONValue]) -> String {
        var text = ""
        for item in items where item["type"]?.stringValue == "message" && item["role"]?.stringValue == "assistant" {
            for part in item["content"]?.arrayValue ?? [] where part["type"]?.stringValue == "output_text" {
                text += part["text"]?.stringValue ?? ""
            }
        }
        return text
    }

    // MARK: Transcripts

    /// Encodes `transcript` into `container`, items the `turns` can rebuild as references.
    static func encode(_ transcript: [ChappieTranscriptItem], referring turns: [ChappieThreadTurn],
                       into container: inout any UnkeyedEncodingContainer) throws {
        let references = References(turns)
        for item in transcript {
            if let reference = references.reference(for: item) {
                try container.encode(TranscriptElement.reference(reference))
            } else {
                try container.encode(TranscriptElement.item(item))
            }
        }
    }

    /// The transcript decoded from `elements`, references rebuilt from `turns`. Throws
    /// `DecodingError` for a reference the turns cannot give.
    static func transcript(_ elements: [TranscriptElement], turns: [ChappieThreadTurn], codingPath: [any CodingKey])
        throws -> [ChappieTranscriptItem] {
        try elements.map { element in
            switch element {
            case .item(let item):
                return item
            case .reference(let reference):
                guard let item = reference.item(in: turns) else {
                    throw DecodingError.dataCorrupted(.init(codingPath: codingPath,
                                                            debugDescription: "a transcript reference to a missing turn item"))
                }
                return item
            }
        }
    }

    /// One transcript element on disk: an item, or a reference (`{"in":[turn,index]}`,
    /// `{"out":[turn,index]}` with optional `"citations"`, `{"call":[turn,index]}`,
    /// `{"result":[turn,index]}`, `{"reply":turn}`, `{"partial":turn}`), told apart by their keys.
    enum TranscriptElement: Codable {
        case item(ChappieTranscriptItem)
        case reference(Reference)

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            func pair(_ key: Key) throws -> (Int, Int) {
                let values = try container.decode([Int].self, forKey: key)
                guard values.count == 2 else {
                    throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not a pair")
                }
                return (values[0], values[1])
            }
            if container.contains(.input) {
                let (turn, index) = try pair(.input)
                self = .reference(.input(turn: turn, index: index))
            } else if container.contains(.output) {
                let (turn, index) = try pair(.output)
                let citations = try container.decodeIfPresent([ChappieURLCitation].self, forKey: .citations) ?? []
                self = .reference(.output(turn: turn, index: index, citations: citations))
            } else if container.contains(.call) {
                let (turn, index) = try pair(.call)
                self = .reference(.call(turn: turn, index: index))
            } else if container.contains(.result) {
                let (turn, index) = try pair(.result)
                self = .reference(.callOutput(turn: turn, index: index))
            } else if container.contains(.reply) {
                self = .reference(.reply(turn: try container.decode(Int.self, forKey: .reply), partial: false))
            } else if container.contains(.partial) {
                self = .reference(.reply(turn: try container.decode(Int.self, forKey: .partial), partial: true))
            } else {
                self = .item(try ChappieTranscriptItem(from: decoder))
            }
        }

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .item(let item):
                try item.encode(to: encoder)
            case .reference(let reference):
                var container = encoder.container(keyedBy: Key.self)
                switch reference {
                case .input(let turn, let index): try container.encode([turn, index], forKey: .input)
                case .output(let turn, let index, let citations):
                    try container.encode([turn, index], forKey: .output)
                    if !citations.isEmpty { try container.encode(citations, forKey: .citations) }
                case .call(let turn, let index): try container.encode([turn, index], forKey: .call)
                case .callOutput(let turn, let index): try container.encode([turn, index], forKey: .result)
                case .reply(let turn, let partial): try container.encode(turn, forKey: partial ? .partial : .reply)
                }
            }
        }

        private enum Key: String, CodingKey {
            case input = "in", output = "out", citations, call, result, reply, partial
        }
    }

    // MARK: Turns

    /// A turn on disk: empty collections and strings left out, the output text only when it is
    /// not the text of the turn's output items.
    struct Turn: Codable {
        var turn: ChappieThreadTurn

        init(_ turn: ChappieThreadTurn) { self.turn = turn }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            let items = try container.decodeIfPresent([ChappieJSONValue].self, forKey: .items) ?? []
            turn = ChappieThreadTurn(
                id: try container.decode(UUID.self, forKey: .id),
                input: try container.decodeIfPresent([ChappieInputMessage].self, forKey: .input) ?? [],
                startedAt: try container.decode(Date.self, forKey: .startedAt),
                endedAt: try container.decode(Date.self, forKey: .endedAt),
                status: try container.decode(ChappieThreadTurn.Status.self, forKey: .status),
                model: try container.decodeIfPresent(String.self, forKey: .model),
                responseID: try container.decodeIfPresent(String.self, forKey: .responseID),
                outputText: try container.decodeIfPresent(String.self, forKey: .outputText) ?? ThreadFormat.outputText(of: items),
                reasoningSummary: try container.decodeIfPresent(String.self, forKey: .reasoningSummary) ?? "",
                items: items,
                toolCalls: try container.decodeIfPresent([ChappieRuntimeToolCall].self, forKey: .toolCalls) ?? [],
                approvals: try container.decodeIfPresent([ChappieRuntimeApproval].self, forKey: .approvals) ?? [],
                usage: try container.decodeIfPresent(ChappieTokenUsage.self, forKey: .usage),
                failure: try container.decodeIfPresent(ChappieThreadTurnFailure.self, forKey: .failure),
                transport: try container.decodeIfPresent(ChappieStreamingTransport.self, forKey: .transport),
                contextRepair: try container.decodeIfPresent(ChappieContextRepair.self, forKey: .contextRepair))
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(turn.id, forKey: .id)
            if !turn.input.isEmpty { try container.encode(turn.input, forKey: .input) }
            try container.encode(turn.startedAt, forKey: .startedAt)
            try container.encode(turn.endedAt, forKey: .endedAt)
            try container.encode(turn.status, forKey: .status)
            try container.encodeIfPresent(turn.model, forKey: .model)
            try container.encodeIfPresent(turn.responseID, forKey: .responseID)
            if turn.outputText != ThreadFormat.outputText(of: turn.items) { try container.encode(turn.outputText, forKey: .outputText) }
            if !turn.reasoningSummary.isEmpty { try container.encode(turn.reasoningSummary, forKey: .reasoningSummary) }
            if !turn.items.isEmpty { try container.encode(turn.items, forKey: .items) }
            if !turn.toolCalls.isEmpty { try container.encode(turn.toolCalls, forKey: .toolCalls) }
            if !turn.approvals.isEmpty { try container.encode(turn.approvals, forKey: .approvals) }
            try container.encodeIfPresent(turn.usage, forKey: .usage)
            try container.encodeIfPresent(turn.failure, forKey: .failure)
            try container.encodeIfPresent(turn.transport, forKey: .transport)
            try container.encodeIfPresent(turn.contextRepair, forKey: .contextRepair)
        }

        /// Every stored member of ``ChappieThreadTurn`` (a test checks the list is complete).
        enum Key: String, CodingKey, CaseIterable {
            case id, input, startedAt, endedAt, status, model, responseID, outputText, reasoningSummary, items, toolCalls, approvals,
                 usage, failure, transport, contextRepair
        }
    }

    // MARK: Snapshots

    /// A whole thread on disk (`<uuid>.json`).
    struct Snapshot: Codable {
        var thread: ChappieThread

        init(_ thread: ChappieThread) { self.thread = thread }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            let version = try container.decode(Int.self, forKey: .formatVersion)
            guard version == ThreadFormat.version else {
                throw DecodingError.dataCorruptedError(forKey: .formatVersion, in: container, debugDescription: "not format 3")
            }
            let model = try container.decode(String.self, forKey: .model)
            let createdAt = try container.decode(Date.self, forKey: .createdAt)
            let updatedAt = try container.decode(Date.self, forKey: .updatedAt)
            let turns = try container.decodeIfPresent([Turn].self, forKey: .turns)?.map(\.turn) ?? []
            let context = try container.nestedContainer(keyedBy: ContextKey.self, forKey: .context)
            let elements = try context.decodeIfPresent([TranscriptElement].self, forKey: .transcript) ?? []
            let clientContext = ChappieClientContext(
                sessionID: try context.decode(String.self, forKey: .sessionID),
                threadID: try context.decode(String.self, forKey: .threadID),
                model: try context.decodeIfPresent(String.self, forKey: .model) ?? model,
                transcript: try ThreadFormat.transcript(elements, turns: turns, codingPath: context.codingPath),
                compactedSummary: try context.decodeIfPresent(String.self, forKey: .compactedSummary),
                createdAt: try context.decodeIfPresent(Date.self, forKey: .createdAt) ?? createdAt,
                updatedAt: try context.decodeIfPresent(Date.self, forKey: .updatedAt) ?? updatedAt)
            let compactions = try container.decodeIfPresent([ChappieThreadCompaction].self, forKey: .compactions) ?? []
            var thread = ChappieThread(id: try container.decode(UUID.self, forKey: .id), title: try container.decode(String.self, forKey: .title),
                                       context: clientContext, createdAt: createdAt,
                                       archived: try container.decode(Bool.self, forKey: .archived), turns: turns, compactions: compactions)
            thread.formatVersion = version
            thread.model = model
            thread.updatedAt = updatedAt
            thread.revision = try container.decode(Int.self, forKey: .revision)
            self.thread = thread
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(ThreadFormat.version, forKey: .formatVersion)
            try container.encode(thread.id, forKey: .id)
            try container.encode(thread.revision, forKey: .revision)
            try container.encode(thread.title, forKey: .title)
            try container.encode(thread.model, forKey: .model)
            try container.encode(thread.createdAt, forKey: .createdAt)
            try container.encode(thread.updatedAt, forKey: .updatedAt)
            try container.encode(thread.archived, forKey: .archived)
            var context = container.nestedContainer(keyedBy: ContextKey.self, forKey: .context)
            try context.encode(thread.context.sessionID, forKey: .sessionID)
            try context.encode(thread.context.threadID, forKey: .threadID)
            if thread.context.model != thread.model { try context.encode(thread.context.model, forKey: .model) }
            try context.encodeIfPresent(thread.context.compactedSummary, forKey: .compactedSummary)
            if thread.context.createdAt != thread.createdAt { try context.encode(thread.context.createdAt, forKey: .createdAt) }
            if thread.context.updatedAt != thread.updatedAt { try context.encode(thread.context.updatedAt, forKey: .updatedAt) }
            if !thread.context.transcript.isEmpty {
                var transcript = context.nestedUnkeyedContainer(forKey: .transcript)
                try ThreadFormat.encode(thread.context.transcript, referring: thread.turns, into: &transcript)
            }
            if !thread.turns.isEmpty { try container.encode(thread.turns.map(Turn.init), forKey: .turns) }
            if !thread.compactions.isEmpty { try container.encode(thread.compactions, forKey: .compactions) }
        }

        /// Every stored member of ``ChappieThread`` (a test checks the list is complete).
        enum Key: String, CodingKey, CaseIterable {
            case formatVersion, id, revision, title, model, createdAt, updatedAt, archived, context, turns, compactions
        }

        /// Every stored member of ``/ChappieSDK/ChappieClientContext`` (a test checks the list is complete).
        enum ContextKey: String, CodingKey, CaseIterable {
            case sessionID, threadID, model, compactedSummary, createdAt, updatedAt, transcript
        }
    }
}

extension Array {
    /// The element at `index`, or nil when `index` is out of range.
    fileprivate func element(at index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
