import ChappieSDK
import ChappieSDKRuntime
import Foundation
import Testing

/// Correctness at the sizes the benchmark measures (DESIGN §8); sizes and times belong to
/// `chappie-bench`, not here.
@Suite("Thread store at scale")
struct ThreadStoreScaleTests {
    @Test("a 10,000-message thread round-trips", arguments: StoreKind.allCases)
    func tenThousandMessages(kind: StoreKind) async throws {
        try await withTemporaryFolder { folder in
            let thread = ThreadFixtures.long(messages: 10_000)
            let store = kind.make(in: folder)
            try await store.save(thread)
            let loaded = try await (kind == .file ? kind.make(in: folder) : store).thread(id: thread.id)
            #expect(loaded.context.messages.count == 10_000)
            #expect(loaded.context == thread.context)
            #expect(try await store.threads(includingArchived: false).first?.messageCount == 10_000)
        }
    }

    @Test("1,000 threads list in recency order from the index, and each loads", arguments: StoreKind.allCases)
    func thousandThreads(kind: StoreKind) async throws {
        try await withTemporaryFolder { folder in
            let store = kind.make(in: folder)
            var ids: [UUID] = []
            for index in 0..<1_000 {
                let thread = ThreadFixtures.small(title: "thread \(index)", updatedAt: ThreadFixtures.start.addingTimeInterval(Double(index)),
                                                  archived: index.isMultiple(of: 10))
                try await store.save(thread)
                ids.append(thread.id)
            }
            let reader = kind == .file ? kind.make(in: folder) : store
            let active = try await reader.threads(includingArchived: false)
            let all = try await reader.threads(includingArchived: true)
            #expect(all.count == 1_000)
            #expect(active.count == 900)
            #expect(all.map(\.id) == ids.reversed())
            #expect(active.allSatisfy { !$0.archived })
            for id in ids.shuffled().prefix(50) { #expect(try await reader.thread(id: id).id == id) }
            #expect(try await reader.usage().threadCount == 1_000)
        }
    }
}
