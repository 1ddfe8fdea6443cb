import Foundation

/// Stores each thread as one JSON file, with an index that makes listing cheap (DESIGN §5).
///
/// Layout inside ``directory`` (mode 0700): `<uuid>.json` per thread (mode 0600), `index.json`,
/// a `.lock` file, and `damaged/` for files set aside. File names come only from thread UUIDs,
/// never from titles or other user text.
///
/// Safety:
/// - Every write replaces a file atomically (temporary file, `fsync`, `rename`, `fsync` of the
///   folder): a crash leaves the old file or the new one, never a torn one. Temporary files left
///   by a killed writer are removed the next time the folder is opened.
/// - Every read-modify-write holds an exclusive `flock` on `.lock`, so two processes (or two
///   store instances) never lose each other's writes; ``update(id:_:)`` is the transaction.
/// - A thread file that cannot be read is moved to `damaged/` unchanged and reported in
///   ``issues()``; the other threads are unaffected. A file with a newer format version is left
///   alone and reported; foreign files are reported and never touched.
/// - The ``redactor`` runs over every string before anything is written.
/// - A save that would take the thread files over the policy's byte cap fails with
///   ``ChappieThreadStoreError/byteCapExceeded(bytesNeeded:bytesUsed:byteCap:)`` and writes
///   nothing.
/// - Files others can read, files owned by another user and symbolic links are refused.
public actor ChappieFileThreadStore: ChappieThreadStore {
    /// The store folder.
    public nonisolated let directory: URL
    /// File protection, backup exclusion and byte cap.
    public nonisolated let storagePolicy: ChappieFileThreadStoreStoragePolicy
    /// Applied to every thread before it is written.
    public nonisolated let redactor: ChappieThreadRedactor

    private let files: ThreadFileSystem
    private var opened = false
    private var cachedIndex: (index: ThreadIndex, file: ThreadFileSystem.FileIdentity)?
    /// The index entries' encoded bytes from the last save, reused for entries that did not change.
    private var encodedEntries: [UUID: ThreadIndex.EncodedEntry] = [:]
    private var foundIssues: [ChappieThreadStoreIssue] = []
    private var reportedNames: Set<String> = []

    /// Largest thread file read, in bytes (1 GiB); a larger file is treated as damaged.
    public static let maximumThreadFileBytes = 1 << 30

    /// Creates a store. Nothing touches the disk until the first call.
    /// - Parameters:
    ///   - directory: the store folder; nil uses ``defaultDirectory()``.
    ///   - storagePolicy: protection, backup exclusion and byte cap (default ``ChappieFileThreadStoreStoragePolicy/default``).
    ///   - redactor: applied before anything is written (default ``ChappieThreadRedactor/credentials``).
    public init(directory: URL? = nil, storagePolicy: ChappieFileThreadStoreStoragePolicy = .default,
                redactor: ChappieThreadRedactor = .credentials) {
        let folder = (directory ?? Self.defaultDirectory()).standardizedFileURL
        self.directory = folder
        self.storagePolicy = storagePolicy
        self.redactor = redactor
        files = ThreadFileSystem(directory: folder.path, policy: storagePolicy)
    }

    /// The default folder: `Application Support/Chappie/Threads` on Apple platforms;
    /// `$XDG_DATA_HOME/chappie/threads` on Linux (`~/.local/share/chappie/threads` when
    /// `XDG_DATA_HOME` is unset or not an absolute path).
    public static func defaultDirectory() -> URL {
        #if canImport(Darwin)
        let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true).appending(path: "Library/Application Support", directoryHint: .isDirectory)
        return support.appending(path: "Chappie/Threads", directoryHint: .isDirectory)
        #else
        let base: URL
        if let xdg = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appending(path: ".local/share", directoryHint: .isDirectory)
        }
        return base.appending(path: "chappie/threads", directoryHint: .isDirectory)
        #endif
    }

    // MARK: ChappieThreadStore

    /// Stores `thread` whole (redacted), replacing any stored thread with its id, and returns
    /// what was stored. Throws ``ChappieThreadStoreError``; on error nothing changed.
    @discardableResult
    public func save(_ thread: ChappieThread) async throws -> ChappieThread {
        let redacted = try ThreadCoding.redacted(thread, with: redactor)
        return try await locked { index in
            let stored = index.entries[redacted.id]?.revision ?? 0
            var next = redacted
            next.revision = max(stored, thread.revision) + 1
            try write(next, into: &index)
            return next
        }
    }

    /// Reads, changes with `body` and stores the thread `id` while holding the folder lock.
    /// Throws ``ChappieThreadStoreError/threadNotFound(_:)``, another ``ChappieThreadStoreError``,
    /// or what `body` throws (then nothing changed).
    @discardableResult
    public func update(id: UUID, _ body: @Sendable (inout ChappieThread) throws -> Void) async throws -> ChappieThread {
        let redactor = redactor
        return try await locked { index in
            var thread = try readThread(id, index: &index)
            let revision = thread.revision
            try body(&thread)
            thread.id = id
            var next = try ThreadCoding.redacted(thread, with: redactor)
            next.revision = revision + 1
            try write(next, into: &index)
            return next
        }
    }

    /// The stored thread `id`. Throws ``ChappieThreadStoreError/threadNotFound(_:)``,
    /// ``ChappieThreadStoreError/corruptThread(_:reason:)`` (the file was set aside) or another
    /// ``ChappieThreadStoreError``.
    public func thread(id: UUID) async throws -> ChappieThread {
        try await locked { index in try readThread(id, index: &index) }
    }

    /// Summaries from the index, most recent first; archived ones only when `includingArchived`.
    /// Checks each thread file's size and identity against the index (no thread is read unless
    /// it changed behind the index's back). Throws ``ChappieThreadStoreError``.
    public func threads(includingArchived: Bool) async throws -> [ChappieThreadSummary] {
        try await locked(reconciling: true) { index in
            index.entries.values.map(\.summary).filter { includingArchived || !$0.archived }.sortedByRecency()
        }
    }

    /// Deletes the thread `id`; a missing thread is not an error. Throws ``ChappieThreadStoreError``.
    public func delete(id: UUID) async throws {
        try await locked { index in
            try files.remove(Self.fileName(for: id))
            index.entries[id] = nil
        }
    }

    /// Bytes the thread files use against the policy's cap. Throws ``ChappieThreadStoreError``.
    public func usage() async throws -> ChappieThreadStoreUsage {
        try await locked(reconciling: true) { index in
            ChappieThreadStoreUsage(bytesUsed: index.bytesUsed, byteCap: storagePolicy.byteCap, threadCount: index.entries.count)
        }
    }

    /// Problems found since this instance was created, oldest first.
    public func issues() async -> [ChappieThreadStoreIssue] { foundIssues }

    // MARK: Locked work

    /// Runs `body` with the index while holding the folder lock, then stores the index if it
    /// changed (also when `body` throws, so a correction is not lost). The first call of an
    /// instance creates the folder (as does any call after the folder was removed), removes stale
    /// temporary files and reconciles the index with
    /// the folder; `reconciling` reconciles again.
    private func locked<Result>(reconciling: Bool = false, _ body: (inout ThreadIndex) throws -> Result) async throws -> Result {
        if !opened || !files.folderExists() {
            try files.prepareFolder()
            if opened { cachedIndex = nil }
        }
        return try await files.withLock {
            if !opened { removeStaleTemporaryFiles() }
            let loaded = loadIndex()
            var index = loaded.value
            if !opened || reconciling || loaded.rebuilt { reconcile(&index) }
            opened = true
            let result: Result
            do {
                result = try body(&index)
            } catch {
                if loaded.rebuilt || index != loaded.value { try? saveIndex(index) }
                throw error
            }
            if loaded.rebuilt || index != loaded.value { try saveIndex(index) }
            return result
        }
    }

    /// The stored index (from the cache when the file has not changed since this instance last
    /// read or wrote it); `rebuilt` when it was missing or damaged (then it starts empty).
    private func loadIndex() -> (value: ThreadIndex, rebuilt: Bool) {
        let name = ThreadFileSystem.Names.index
        if let cachedIndex, cachedIndex.file == files.identity(of: name) { return (cachedIndex.index, false) }
        cachedIndex = nil
        do {
            guard let (data, identity) = try files.read(name, maximumBytes: Self.maximumThreadFileBytes) else {
                return (ThreadIndex(), true)
            }
            if let index = ThreadIndex.decode(data) {
                cachedIndex = (index, identity)
                return (index, false)
            }
            report(.indexRebuilt, id: nil, name: name, detail: "the index was damaged and was rebuilt from the thread files")
        } catch {
            report(.indexRebuilt, id: nil, name: name, detail: "the index could not be read and was rebuilt: \(Self.describe(error))")
        }
        return (ThreadIndex(), true)
    }

    /// Writes the index atomically and caches it. Throws ``ChappieThreadStoreError``.
    private func saveIndex(_ index: ThreadIndex) throws {
        cachedIndex = nil
        let identity = try files.write(try index.encoded(reusing: &encodedEntries), to: ThreadFileSystem.Names.index)
        cachedIndex = (index, identity)
    }

    /// Brings the index in line with the folder: drops entries whose file is gone, re-reads files
    /// whose identity changed and adds files the index lacks.
    private func reconcile(_ index: inout ThreadIndex) {
        var present: Set<UUID> = []
        for name in files.fileNames() {
            guard let id = Self.threadID(fromFileName: name) else {
                if Self.isOwnName(name) { continue }
                if !reportedNames.contains(name) {
                    reportedNames.insert(name)
                    report(.foreignFile, id: nil, name: name, detail: "a file the store did not write; left alone")
                }
                continue
            }
            present.insert(id)
            if let entry = index.entries[id], entry.file == files.identity(of: name) { continue }
            index.entries[id] = nil
            _ = try? readThread(id, index: &index)
        }
        for id in index.entries.keys where !present.contains(id) {
            index.entries[id] = nil
        }
    }

    /// Reads thread `id`, refreshing its index entry. A damaged file is moved aside and
    /// reported, and its entry dropped. Throws ``ChappieThreadStoreError``.
    private func readThread(_ id: UUID, index: inout ThreadIndex) throws -> ChappieThread {
        let name = Self.fileName(for: id)
        let contents: (data: Data, identity: ThreadFileSystem.FileIdentity)?
        do {
            contents = try files.read(name, maximumBytes: Self.maximumThreadFileBytes)
        } catch let error as ChappieThreadStoreError {
            index.entries[id] = nil
            if case .insecurePermissions = error {
                reportOnce(.insecureFile, id: id, name: name, detail: "the file is accessible by others or not owned by you; not read")
            } else if case .symbolicLinkRefused = error {
                reportOnce(.insecureFile, id: id, name: name, detail: "the file is a symbolic link; not followed")
            }
            throw error
        }
        guard let (data, identity) = contents else {
            index.entries[id] = nil
            throw ChappieThreadStoreError.threadNotFound(id)
        }
        switch ThreadCoding.decode(data, expectedID: id) {
        case .thread(let thread):
            index.entries[id] = ThreadIndex.Entry(summary: ChappieThreadSummary(thread, byteCount: identity.bytes),
                                                  revision: thread.revision, file: identity)
            return thread
        case .unsupported(let version):
            index.entries[id] = nil
            reportOnce(.unsupportedFormat, id: id, name: name, detail: "written by a newer version (format \(version)); left alone")
            throw ChappieThreadStoreError.unsupportedFormatVersion(id, version: version)
        case .corrupt(let reason):
            index.entries[id] = nil
            let aside = try setAside(name, id: id)
            report(.corruptThread, id: id, name: name, detail: reason, setAsideAs: aside)
            throw ChappieThreadStoreError.corruptThread(id, reason: reason)
        }
    }

    /// Writes `thread` (already redacted, with its new revision) and its index entry, after
    /// checking the byte cap; the caller stores the index. Throws ``ChappieThreadStoreError``; nothing changes on error.
    private func write(_ thread: ChappieThread, into index: inout ThreadIndex) throws {
        var thread = thread
        thread.formatVersion = ChappieThread.currentFormatVersion
        let data = try ThreadCoding.encode(thread)
        let name = Self.fileName(for: thread.id)
        let replaced = files.identity(of: name)?.bytes ?? 0
        let others = index.bytesUsed - (index.entries[thread.id]?.summary.byteCount ?? 0)
        let needed = others + data.count
        if needed > storagePolicy.byteCap && data.count > replaced {
            throw ChappieThreadStoreError.byteCapExceeded(bytesNeeded: needed, bytesUsed: others + replaced, byteCap: storagePolicy.byteCap)
        }
        let identity = try files.write(data, to: name)
        index.entries[thread.id] = ThreadIndex.Entry(summary: ChappieThreadSummary(thread, byteCount: identity.bytes),
                                                     revision: thread.revision, file: identity)
    }

    /// Moves a damaged file into `damaged/` and returns its new relative path. Throws
    /// ``ChappieThreadStoreError/io(_:)``.
    private func setAside(_ name: String, id: UUID) throws -> String {
        try files.prepareFolder(ThreadFileSystem.Names.quarantine)
        let stamp = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        let aside = "\(ThreadFileSystem.Names.quarantine)/\(id.uuidString.lowercased())-\(stamp)-\(UUID().uuidString.prefix(8).lowercased()).json"
        try files.move(name, to: aside)
        return aside
    }

    /// Deletes temporary files left by writers that died before renaming them. Only called
    /// while holding the lock, so no live writer owns one.
    private func removeStaleTemporaryFiles() {
        for name in files.fileNames() where name.hasPrefix(ThreadFileSystem.Names.temporaryPrefix)
            && name.hasSuffix(ThreadFileSystem.Names.temporarySuffix) {
            if (try? files.remove(name)) != nil {
                report(.staleTemporaryFileRemoved, id: nil, name: name, detail: "left by an interrupted write; removed")
            }
        }
    }

    private func report(_ kind: ChappieThreadStoreIssue.Kind, id: UUID?, name: String, detail: String, setAsideAs: String? = nil) {
        foundIssues.append(ChappieThreadStoreIssue(kind: kind, threadID: id, fileName: name, detail: detail, setAsideAs: setAsideAs))
    }

    private func reportOnce(_ kind: ChappieThreadStoreIssue.Kind, id: UUID, name: String, detail: String) {
        guard !reportedNames.contains(name) else { return }
        reportedNames.insert(name)
        report(kind, id: id, name: name, detail: detail)
    }

    // MARK: Names

    /// `<uuid>.json`, lower case.
    static func fileName(for id: UUID) -> String {
        id.uuidString.lowercased() + ThreadFileSystem.Names.threadSuffix
    }

    /// The thread id of a file named by ``fileName(for:)``, or nil.
    static func threadID(fromFileName name: String) -> UUID? {
        guard name.hasSuffix(ThreadFileSystem.Names.threadSuffix), name.count == 36 + ThreadFileSystem.Names.threadSuffix.count,
              let id = UUID(uuidString: String(name.dropLast(ThreadFileSystem.Names.threadSuffix.count))),
              fileName(for: id) == name else { return nil }
        return id
    }

    /// Names the store itself writes, besides thread files.
    private static func isOwnName(_ name: String) -> Bool {
        name == ThreadFileSystem.Names.index || name == ThreadFileSystem.Names.lock || name == ThreadFileSystem.Names.quarantine
            || (name.hasPrefix(ThreadFileSystem.Names.temporaryPrefix) && name.hasSuffix(ThreadFileSystem.Names.temporarySuffix))
    }

    private static func describe(_ error: any Error) -> String {
        (error as? ChappieThreadStoreError)?.errorDescription ?? error.localizedDescription
    }
}
