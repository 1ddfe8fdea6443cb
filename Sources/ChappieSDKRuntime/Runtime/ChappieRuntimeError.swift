import Foundation

/// Why a runtime call failed, apart from client and store errors (``/ChappieSDK/ChappieClientError``,
/// ``ChappieThreadStoreError``), which the runtime passes through unchanged.
public enum ChappieRuntimeError: Error, Sendable, Equatable, LocalizedError {
    /// The call needs a current thread, and there is none yet: send a message or resume a thread first.
    case noCurrentThread

    /// A one-line description for people.
    public var errorDescription: String? {
        switch self {
        case .noCurrentThread: "There is no current thread: send a message or resume a thread first."
        }
    }

    /// What the app can do about it, one sentence.
    public var recoverySuggestion: String? {
        switch self {
        case .noCurrentThread: "Send a message or resume a thread first."
        }
    }
}
