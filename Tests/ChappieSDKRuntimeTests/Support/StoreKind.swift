import ChappieSDKRuntime
import Foundation

/// The two store implementations, for tests that must hold for both.
enum StoreKind: String, CaseIterable, Sendable {
    case file, memory

    /// A fresh store of this kind in `folder` (the memory store ignores the folder).
    func make(in folder: URL, byteCap: Int? = nil, redactor: ChappieThreadRedactor = .credentials) -> any ChappieThreadStore {
        switch self {
        case .file:
            let policy = ChappieFileThreadStoreStoragePolicy(byteCap: byteCap ?? ChappieFileThreadStoreStoragePolicy.defaultByteCap)
            return ChappieFileThreadStore(directory: threadsFolder(in: folder), storagePolicy: policy, redactor: redactor)
        case .memory:
            return ChappieInMemoryThreadStore(byteCap: byteCap, redactor: redactor)
        }
    }
}
