import ChappieSDK
import ChappieSDKRuntime
import Foundation
import Testing

/// Saved threads for CLI tests, written through the SDK's file store into the folder the
/// `chappie` binary reads for a given environment (`$XDG_DATA_HOME/chappie/threads`), so a test
/// can choose thread IDs (for example two that share a prefix) without running a conversation.
enum CLIThreadStore {
    /// The store the binary uses with `environment` (from ``CLIProcess/isolatedEnvironment()``).
    static func store(for environment: [String: String]) -> ChappieFileThreadStore {
        let data = URL(filePath: environment["XDG_DATA_HOME"] ?? "/nonexistent", directoryHint: .isDirectory)
        return ChappieFileThreadStore(directory: data.appending(path: "chappie/threads", directoryHint: .isDirectory))
    }

    /// Saves a thread with `id`, `title`, `model` and `messages` (alternating user and
    /// assistant, starting with the user); returns its ID. Throws ``ChappieThreadStoreError``, or
    /// when `id` is not a UUID.
    @discardableResult
    static func seed(_ id: String, title: String = "seeded thread", model: String = "gpt-5.5",
                     messages: [String] = ["a seeded question", "a seeded answer"],
                     in environment: [String: String]) async throws -> UUID {
        let uuid = try #require(UUID(uuidString: id), "not a UUID: \(id)")
        let transcript = messages.enumerated().map { index, text in index.isMultiple(of: 2) ? ChappieInputMessage.user(text) : .assistant(text) }
        let context = ChappieClientContext(sessionID: UUID().uuidString.lowercased(), threadID: uuid.uuidString.lowercased(), model: model,
                                           messages: transcript, compactedSummary: nil, createdAt: Date(), updatedAt: Date())
        _ = try await store(for: environment).save(ChappieThread(id: uuid, title: title, context: context))
        return uuid
    }
}
