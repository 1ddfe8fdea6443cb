import ChappieSDK
import Foundation

/// One durable conversation: the client's transcript plus everything the runtime recorded about
/// its turns. Plain `Codable` data, written whole by a ``ChappieThreadStore``.
///
/// The transcript is stored as the client's own ``/ChappieSDK/ChappieClientContext``, so whatever the context
/// carries (messages, the compaction summary, the model, and any item kinds it gains later) is
/// persisted and restored by ``ChappieRuntime/resume(threadID:)`` without the runtime knowing
/// about it.
public struct ChappieThread: Sendable, Hashable, Codable, Identifiable {
    /// The version of the stored shape this type writes. A store refuses files with a newer
    /// version instead of misreading them. Version 2 threads may have a journal beside their
    /// snapshot (``ChappieFileThreadStore``), which version 1 readers would miss; version 3
    /// files store each message and output item once (the transcript refers to the turns that
    /// hold them), which version 2 readers cannot read. Threads of an earlier version are read
    /// (``formatVersion`` then says which) and rewritten in the current one on their next write.
    public static let currentFormatVersion = 3

    /// The stored shape's version (``currentFormatVersion`` for threads written by this SDK).
    public var formatVersion: Int
    /// The thread's identifier. Stores name files after it, never after user text. A thread
    /// ``ChappieRuntime`` creates takes its conversation's id: ``id`` and the context's
    /// ``/ChappieSDK/ChappieClientContext/threadID`` (the prompt cache key) are the same value,
    /// lower-cased there (threads stored by earlier versions may hold two different ids).
    public var id: UUID
    /// A short display title, by default the start of the first user message. May contain user
    /// text; it is never used as a file name.
    public var title: String
    /// The model slug the conversation uses (the context's model when last saved).
    public var model: String
    /// When the thread was created.
    public var createdAt: Date
    /// When the thread last changed (a turn, a compaction, archiving, a rename).
    public var updatedAt: Date
    /// Archived threads are kept but left out of ``ChappieRuntime/listThreads()``.
    public var archived: Bool
    /// The transcript as the client holds it; ``/ChappieSDK/ChappieClient/resumeContext(_:)`` continues it.
    public var context: ChappieClientContext
    /// Every turn the runtime ran in this thread, oldest first, including failed and cancelled
    /// ones, with their usage, tool calls and errors.
    public var turns: [ChappieThreadTurn]
    /// The compaction applied to the transcript; ``ChappieRuntime`` keeps only the newest (it
    /// stands for everything before it). Threads stored by earlier versions may hold several,
    /// oldest first.
    public var compactions: [ChappieThreadCompaction]
    /// Incremented by the store on every write; lets a store and the runtime notice writes made
    /// elsewhere (another runtime or process).
    public var revision: Int

    /// Creates a thread.
    /// - Parameters:
    ///   - id: the identifier (default: a new random UUID).
    ///   - title: the display title.
    ///   - context: the transcript; its model becomes ``model``.
    ///   - createdAt: the creation date (default: now); also the first ``updatedAt``.
    ///   - archived: whether the thread starts archived.
    ///   - turns: turn records, oldest first.
    ///   - compactions: compaction records, oldest first.
    public init(id: UUID = UUID(), title: String, context: ChappieClientContext, createdAt: Date = Date(),
                archived: Bool = false, turns: [ChappieThreadTurn] = [], compactions: [ChappieThreadCompaction] = []) {
        formatVersion = Self.currentFormatVersion
        self.id = id
        self.title = title
        model = context.model
        self.createdAt = createdAt
        updatedAt = createdAt
        self.archived = archived
        self.context = context
        self.turns = turns
        self.compactions = compactions
        revision = 0
    }

    /// Adds what one turn brought: `transcriptItems` to the transcript, `turn` to the turns;
    /// the thread's and the transcript's model become `model`, the transcript's update date
    /// `contextUpdatedAt` and the thread's `turn.endedAt`.
    mutating func addTurn(_ turn: ChappieThreadTurn, transcriptItems: [ChappieTranscriptItem], model: String, contextUpdatedAt: Date) {
        context.transcript.append(contentsOf: transcriptItems)
        context.model = model
        context.updatedAt = contextUpdatedAt
        self.model = model
        turns.append(turn)
        updatedAt = turn.endedAt
    }

    /// This thread with every attachment's bytes left out, in its transcript and its turns'
    /// input (``/ChappieSDK/ChappieAttachment/withoutData``): what ``ChappieFileThreadStore``
    /// writes, so images never grow thread files.
    public var withoutAttachmentData: ChappieThread {
        var copy = self
        copy.context = context.withoutAttachmentData
        copy.turns = turns.map { turn in
            var turn = turn
            turn.input = turn.input.map(\.withoutAttachmentData)
            return turn
        }
        return copy
    }

    /// The transcript's messages, oldest first (``/ChappieSDK/ChappieClientContext/messages``).
    public var messages: [ChappieInputMessage] { context.messages }

    /// Token usage summed over every turn that reported it; nil when none did.
    public var totalUsage: ChappieTokenUsage? {
        turns.compactMap(\.usage).reduce(nil) { total, usage in
            guard let total else { return usage }
            return ChappieTokenUsage(inputTokens: total.inputTokens + usage.inputTokens,
                                     cachedInputTokens: total.cachedInputTokens + usage.cachedInputTokens,
                                     outputTokens: total.outputTokens + usage.outputTokens,
                                     reasoningOutputTokens: total.reasoningOutputTokens + usage.reasoningOutputTokens,
                                     totalTokens: total.totalTokens + usage.totalTokens)
        }
    }

    /// A title made from `text`: its first line, redacted with `redactor` *before* it is cut
    /// (a secret cut in half no longer matches a redactor), whitespace trimmed, cut to
    /// `maximumCharacters` characters with an ellipsis; "Untitled" when nothing is left. When
    /// the cut falls inside a word that starts like a credential (a JWT's `eyJ`, `sk-`, `rt_`),
    /// that word becomes ``ChappieThreadRedactor/placeholder``: the start of a secret is still a
    /// secret.
    public static func title(from text: String, maximumCharacters: Int = 60, redactor: ChappieThreadRedactor = .credentials) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let trimmed = redactor.redact(line).trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return "Untitled" }
        guard trimmed.count > maximumCharacters else { return trimmed }
        var kept = String(trimmed.prefix(max(1, maximumCharacters - 1)))
        let cutInsideWord = !(trimmed.dropFirst(kept.count).first?.isWhitespace ?? true)
        let wordStart = kept.lastIndex(where: \.isWhitespace).map { kept.index(after: $0) } ?? kept.startIndex
        if cutInsideWord, Self.credentialPrefixes.contains(where: { kept[wordStart...].hasPrefix($0) }) {
            kept = kept[..<wordStart] + ChappieThreadRedactor.placeholder
        }
        return kept + "…"
    }

    /// How credentials the default redactor knows begin (a JWT header, API keys, refresh tokens).
    private static let credentialPrefixes = ["eyJ", "sk-", "rt_"]
}
