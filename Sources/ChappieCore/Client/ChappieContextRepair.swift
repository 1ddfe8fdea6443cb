/// What Chappie removed from a conversation the server could no longer read: its opaque items
/// (encrypted reasoning and compaction items), which the server seals with a key of its own and
/// refuses (`invalid_encrypted_content`) once that key changed. The messages stay; the request
/// was sent again in full, once, without those items.
///
/// The model loses its saved chain of thought, and what a compaction item stood for (the
/// conversation before the compaction, apart from the user messages kept beside it). A thread
/// kept by `ChappieRuntime` records the repair on its turn, and its turns still hold the whole
/// visible history.
public struct ChappieContextRepair: Sendable, Hashable, Codable {
    /// Encrypted reasoning items dropped.
    public var droppedReasoningItems: Int
    /// Compaction items dropped.
    public var droppedCompactionItems: Int

    /// Creates a repair record.
    public init(droppedReasoningItems: Int, droppedCompactionItems: Int) {
        self.droppedReasoningItems = droppedReasoningItems
        self.droppedCompactionItems = droppedCompactionItems
    }

    /// A sentence for people, e.g. "The server could no longer read 1 compaction item and
    /// 2 reasoning items of this conversation; they were dropped and the message sent again.
    /// Earlier context that the compaction stood for is lost."
    public var summary: String {
        var parts: [String] = []
        if droppedCompactionItems > 0 { parts.append(Self.count(droppedCompactionItems, "compaction item")) }
        if droppedReasoningItems > 0 { parts.append(Self.count(droppedReasoningItems, "reasoning item")) }
        let what = parts.isEmpty ? "saved items" : parts.joined(separator: " and ")
        return "The server could no longer read \(what) of this conversation; they were dropped and the message sent again."
            + (droppedCompactionItems > 0 ? " Earlier context that the compaction stood for is lost." : "")
    }

    private static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }

    /// `transcript` without the items a changed server key makes unreadable (every reasoning and
    /// compaction item), and what was dropped; nil when there is nothing to drop, so sending
    /// again would not help. For the same error the Codex CLI retries once without compaction
    /// items and with reasoning items emptied of their `encrypted_content`
    /// (`codex-rs/core/src/encrypted_content_fallback.rs`); dropping the reasoning items whole
    /// sends nothing the server could refuse.
    static func removingOpaqueItems(from transcript: [ChappieTranscriptItem]) -> (transcript: [ChappieTranscriptItem], repair: Self)? {
        var repair = ChappieContextRepair(droppedReasoningItems: 0, droppedCompactionItems: 0)
        let kept = transcript.filter { item in
            switch item {
            case .reasoning:
                repair.droppedReasoningItems += 1
                return false
            case .compaction:
                repair.droppedCompactionItems += 1
                return false
            default:
                return true
            }
        }
        return kept.count == transcript.count ? nil : (kept, repair)
    }
}
