import ChappieSDK
import ChappieSDKRuntime
import Foundation

/// Sizes and times of `ChappieFileThreadStore` at the scales issue 7 names: one 10,000-message
/// thread, and 1,000 threads listed from the index. Each figure is one run in a fresh folder.
enum ThreadStoreBench {
    static func run() async throws -> [String: Any] {
        let folder = FileManager.default.temporaryDirectory.appending(path: "chappie-bench-threads-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        var results: [String: Any] = [:]

        let longFolder = folder.appending(path: "long")
        let long = thread(title: "long", messages: 10_000)
        let store = ChappieFileThreadStore(directory: longFolder)
        let saveSeconds = try await seconds { _ = try await store.save(long) }
        var loadedCount = 0
        let loadSeconds = try await seconds {
            loadedCount = try await ChappieFileThreadStore(directory: longFolder).thread(id: long.id).context.messageCount
        }
        let appendSeconds = try await seconds {
            _ = try await store.update(id: long.id) { $0.title = "long, renamed" }
        }
        results["ten_thousand_messages"] = [
            "messages": loadedCount, "file_bytes": try await store.usage().bytesUsed,
            "save_seconds": saveSeconds, "load_seconds": loadSeconds, "update_seconds": appendSeconds,
        ]

        let manyFolder = folder.appending(path: "many")
        let many = ChappieFileThreadStore(directory: manyFolder)
        let writeSeconds = try await seconds {
            for index in 0..<1_000 { _ = try await many.save(thread(title: "thread \(index)", messages: 4)) }
        }
        var listed = 0
        let listSeconds = try await seconds {
            listed = try await ChappieFileThreadStore(directory: manyFolder).threads(includingArchived: true).count
        }
        results["thousand_threads"] = [
            "threads": listed, "folder_bytes": try await many.usage().bytesUsed,
            "write_all_seconds": writeSeconds, "list_seconds_fresh_store": listSeconds,
        ]
        return results
    }

    private static func thread(title: String, messages count: Int) -> ChappieThread {
        let messages = (0..<count).map { index -> ChappieInputMessage in
            index.isMultiple(of: 2) ? .user("question \(index): how many units are left of SKU A\(index)?")
                : .assistant("answer \(index): there are \(index * 7 % 97) units left, in two warehouses.")
        }
        let now = Date()
        let context = ChappieClientContext(sessionID: UUID().uuidString, threadID: UUID().uuidString.lowercased(), model: "gpt-5.5",
                                           messages: messages, compactedSummary: nil, createdAt: now, updatedAt: now)
        return ChappieThread(title: title, context: context, createdAt: now)
    }

    private static func seconds(_ body: () async throws -> Void) async throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try await body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
