import Foundation

/// A problem a store found and worked around, reported so an app can tell the user or log it.
public struct ChappieThreadStoreIssue: Sendable, Hashable, Codable {
    /// What was found.
    public struct Kind: RawRepresentable, Sendable, Hashable, Codable {
        /// The stored name.
        public var rawValue: String
        /// Creates a kind from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A thread file could not be read as a thread; it was moved aside unchanged.
        public static let corruptThread = Kind(rawValue: "corrupt_thread")
        /// A thread file was written by a newer version; it was left alone and not listed.
        public static let unsupportedFormat = Kind(rawValue: "unsupported_format")
        /// A file or folder had unsafe ownership or permissions; it was not read.
        public static let insecureFile = Kind(rawValue: "insecure_file")
        /// A file the store did not write sits in its folder; it was left alone.
        public static let foreignFile = Kind(rawValue: "foreign_file")
        /// The index was missing or damaged and was rebuilt from the thread files.
        public static let indexRebuilt = Kind(rawValue: "index_rebuilt")
        /// A temporary file left by an interrupted write was removed.
        public static let staleTemporaryFileRemoved = Kind(rawValue: "stale_temporary_file_removed")
        /// A thread's journal was damaged (or its snapshot was gone); it was moved aside
        /// unchanged, and the thread keeps every whole record before the damage.
        public static let journalSetAside = Kind(rawValue: "journal_set_aside")
    }

    /// What was found.
    public var kind: Kind
    /// The thread concerned, when known.
    public var threadID: UUID?
    /// The file's name inside the store folder (a name the store generated, or a foreign name).
    public var fileName: String
    /// What went wrong (never thread content).
    public var detail: String
    /// Where a damaged file was moved, relative to the store folder.
    public var setAsideAs: String?
    /// When it was found.
    public var date: Date

    /// Creates an issue record.
    public init(kind: Kind, threadID: UUID?, fileName: String, detail: String, setAsideAs: String? = nil, date: Date = Date()) {
        self.kind = kind
        self.threadID = threadID
        self.fileName = fileName
        self.detail = detail
        self.setAsideAs = setAsideAs
        self.date = date
    }
}
