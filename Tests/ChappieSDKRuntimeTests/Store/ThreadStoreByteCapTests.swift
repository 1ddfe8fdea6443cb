import ChappieSDK
import ChappieSDKRuntime
import Foundation
import Testing

/// The bytes one small thread takes in a store (its stored JSON).
private func smallThreadBytes() async throws -> Int {
    let store = ChappieInMemoryThreadStore()
    try await store.save(ThreadFixtures.small())
    return try await store.usage().bytesUsed
}

@Suite("Thread store byte cap")
struct ThreadStoreByteCapTests {
    @Test("a save over the cap fails clearly and everything already stored survives", arguments: StoreKind.allCases)
    func capExceeded(kind: StoreKind) async throws {
        try await withTemporaryFolder { folder in
            // given: a cap that fits about three small threads
            let probe = try await smallThreadBytes()
            let cap = probe * 3 + probe / 2
            let store = kind.make(in: folder, byteCap: cap)
            var saved: [ChappieThread] = []
            for index in 0..<3 { saved.append(try await store.save(ThreadFixtures.small(title: "t\(index)"))) }
            let before = try await store.usage()
            // when
            let error = await #expect(throws: ChappieThreadStoreError.self) { try await store.save(ThreadFixtures.small(title: "t3")) }
            // then
            guard case .byteCapExceeded(let needed, let used, let reportedCap) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(reportedCap == cap)
            #expect(needed > cap)
            #expect(used == before.bytesUsed)
            #expect(error?.errorDescription?.contains("cap") == true)
            let after = try await store.usage()
            #expect(after == before)
            #expect(after.bytesUsed <= cap)
            #expect(after.threadCount == 3)
            for thread in saved { #expect(try await store.thread(id: thread.id) == thread) }
        }
    }

    @Test("an update that would grow past the cap leaves the stored thread as it was", arguments: StoreKind.allCases)
    func growingUpdateRefused(kind: StoreKind) async throws {
        try await withTemporaryFolder { folder in
            let probe = try await smallThreadBytes()
            let store = kind.make(in: folder, byteCap: probe * 2)
            let stored = try await store.save(ThreadFixtures.small())
            await #expect(throws: ChappieThreadStoreError.self) {
                try await store.update(id: stored.id) { $0.context.messages.append(.user(String(repeating: "x", count: probe * 2))) }
            }
            #expect(try await store.thread(id: stored.id) == stored)
            // and a change that shrinks the thread is still allowed
            let shrunk = try await store.update(id: stored.id) { $0.context.messages.removeLast() }
            #expect(shrunk.context.messages.count == 1)
        }
    }

    @Test("usage reports bytes used against the cap, and deleting frees them", arguments: StoreKind.allCases)
    func usageTracksBytes(kind: StoreKind) async throws {
        try await withTemporaryFolder { folder in
            let store = kind.make(in: folder, byteCap: 1_000_000)
            #expect(try await store.usage() == ChappieThreadStoreUsage(bytesUsed: 0, byteCap: 1_000_000, threadCount: 0))
            let one = try await store.save(ThreadFixtures.small())
            let two = try await store.save(ThreadFixtures.everyItemKind())
            let usage = try await store.usage()
            let summaries = try await store.threads(includingArchived: true)
            #expect(usage.threadCount == 2)
            #expect(usage.bytesUsed == summaries.reduce(0) { $0 + $1.byteCount })
            #expect(usage.bytesRemaining == 1_000_000 - usage.bytesUsed)
            if kind == .file {
                let onDisk = [one.id, two.id].map { id in
                    (try? FileManager.default.attributesOfItem(atPath: threadsFolder(in: folder).appending(path: id.uuidString.lowercased() + ".json").path)[.size] as? Int) ?? -1
                }
                #expect(usage.bytesUsed == onDisk.reduce(0, +))
            }
            try await store.delete(id: two.id)
            #expect(try await store.usage().bytesUsed == summaries.first { $0.id == one.id }?.byteCount)
        }
    }
}
