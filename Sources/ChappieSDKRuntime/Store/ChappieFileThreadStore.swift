import ChappieSDK
import Foundation

/// Stores each thread as a snapshot plus an append-only journal, with an index that makes
/// listing cheap, so that saving one more turn costs what the turn adds.
///
/// Layout inside ``directory`` (mode 0700): per thread `<uuid>.json`, a snapshot of the whole
/// thread, and `<uuid>.journal`, one record per write made since the snapshot (both mode 0600);
/// `index.json`, a `.lock` file, and `damaged/` for files set aside. File names come only from
/// thread UUIDs, never from titles or other user text.
///
/// How a write lands:
/// - ``update(id:_:)`` that only adds to the thread (transcript items, turns, compactions) and
///   changes its small fields appends one record to the journal and fsyncs it; the time it
///   takes does not grow with the thread. When the journal outgrows the snapshot (and 64 KiB),
///   the two are folded into a new snapshot.
/// - Any other change, and ``save(_:)``, writes a new snapshot atomically (temporary file,
///   `fsync`, `rename`, `fsync` of the folder) and drops the journal.
/// - Each message and output item is stored once: a turn keeps its input, output items and tool
///   calls, and the transcript's items that a turn holds are stored as references to it (format
///   3), so a turn's reply costs its size once, not three times as in format 2.
/// - A thread written by an earlier SDK (format 1, or format 2 with its journal) still loads;
///   its first write rewrites it as a snapshot of the current format.
///
/// Safety:
/// - A crash leaves every snapshot old or new, never torn, and the journal with whole records
///   plus at most one torn last record, which loading ignores and the next append cuts off.
///   Temporary files left by a killed writer are removed the next time the folder is opened.
/// - Every read-modify-write holds an exclusive `flock` on `.lock`, so two processes (or two
///   store instances) never lose each other's writes; ``update(id:_:)`` is the transaction.
/// - A snapshot that cannot be read is moved to `damaged/` unchanged (with its journal) and
///   reported in ``issues()``; a journal damaged in the middle is moved there too after the
///   records before the damage are kept in a new snapshot. The other threads are unaffected. A
///   file with a newer format version is left alone and reported; foreign files are reported and
///   never touched.
/// - The ``redactor`` runs over every string of a record or snapshot before it is written.
/// - Attachments are stored without their bytes (``ChappieThread/withoutAttachmentData``): a
///   thread shows each image's type and size, or its URL, and a message with a 20 MB photo costs
///   the thread file a few dozen bytes. The client that sent it keeps the bytes in memory for
///   later turns; a thread resumed from this store sends a short note in their place.
/// - A save that would take the thread files over the policy's byte cap fails with
///   ``ChappieThreadStoreError/byteCapExceeded(bytesNeeded:bytesUsed:byteCap:)`` and writes
///   nothing; a failed write (a full disk) leaves the files as they were.
/// - Files others can read, files owned by another user, symbolic links and anything that is not
///   a plain file (a FIFO, a device) are refused without being opened for a blocking read.
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
    /// Threads read or written recently, decoded, with the file state they match.
    private var loadedThreads: [UUID: LoadedThread] = [:]
    /// `loadedThreads` keys, least recently used first.
    private var loadOrder: [UUID] = []

    /// Largest thread file read, in bytes (1 GiB); a larger file is treated as damaged.
    public static let maximumThreadFileBytes = 1 << 30
    /// Threads kept decoded between calls (the most recently used ones).
    static let cachedThreadCount = 8
    /// A journal is folded into a new snapshot once it is larger than the snapshot and than
    /// this many bytes (64 KiB), so small threads are not rewritten every other turn.
    static let minimumFoldBytes = 64 << 10

    /// Creates a store. Nothing touches the disk until the first call.
    /// - Parameters:
    ///   - directory: the store folder; nil uses ``defaultDirectory()``.
    ///   - storagePolicy: protection, backup exclusion and byte cap (default ``ChappieFileThreadStoreStoragePolicy/default``).
    ///   - redactor: applied before anything is written (default ``ChappieThreadRedactor/credentials``).
    public init(directory: URL? = nil, storagePolicy: ChappieFileThreadStoreStoragePolicy = .default,
                redactor: ChappieThreadRedactor = .credentials) {
        self.init(directory: directory, storagePolicy: storagePolicy, redactor: redactor, faults: nil)
    }

    /// Creates a store whose file writes fail as `faults` says (tests of full disks and failing
    /// devices). Nothing touches the disk until the first call.
    @_spi(ChappieTesting)
    public init(directory: URL?, storagePolicy: ChappieFileThreadStoreStoragePolicy = .default,
                redactor: ChappieThreadRedactor = .credentials, faults: ChappieThreadStoreFaults?) {
        let folder = (directory ?? Self.defaultDirectory()).standardizedFileURL
        self.directory = folder
        self.storagePolicy = storagePolicy
        self.redactor = redactor
        files = ThreadFileSystem(directory: folder.path, policy: storagePolicy, faults: faults)
    }

    /// The default folder, one per app: `Application Support/<app>/Chappie/Threads` on Apple
    /// platforms; `$XDG_DATA_HOME/<app>/chappie/threads` on Linux (`$HOME/.local/share/…` when
    /// `XDG_DATA_HOME` is unset or not an absolute path). `<app>` is the main bundle's identifier,
    /// or for a command-line tool its executable's name, so two programs never share a folder.
    public static func defaultDirectory() -> URL {
        directory(forApp: AppIdentity.name)
    }

    /// The default folder of the app named `app` (see ``defaultDirectory()``).
    package static func directory(forApp app: String) -> URL {
        #if canImport(Darwin)
        applicationSupport().appending(path: app, directoryHint: .isDirectory)
            .appending(path: "Chappie/Threads", directoryHint: .isDirectory)
        #else
        UserHomeDirectory.dataHome().appending(path: app, directoryHint: .isDirectory)
            .appending(path: "chappie/threads", directoryHint: .isDirectory)
        #endif
    }

    /// The folder that every program shared before the default became per app
    /// (`Application Support/Chappie/Threads`; `$XDG_DATA_HOME/chappie/threads` on Linux): the
    /// `chappie` command-line tool keeps its threads there.
    package static func sharedLegacyDirectory() -> URL {
        #if canImport(Darwin)
        applicationSupport().appending(path: "Chappie/Threads", directoryHint: .isDirectory)
        #else
        UserHomeDirectory.dataHome().appending(path: "chappie/threads", directoryHint: .isDirectory)
        #endif
    }

    #if canImport(Darwin)
    /// The user's `Application Support` folder.
    private static func applicationSupport() -> URL {
        FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true).appending(path: "Library/Application Support", directoryHint: .isDirectory)
    }
    #endif

    // MARK: ChappieThreadStore

    /// Stores `thread` whole (redacted) as a new snapshot, replacing any stored thread with its
    /// id, and returns what was stored. Throws ``ChappieThreadStoreError``; on error nothing
    /// changed.
    @discardableResult
    public func save(_ thread: ChappieThread) async throws -> ChappieThread {
        let redacted = try ThreadCoding.redacted(thread.withoutAttachmentData, with: redactor)
        return try await locked { index in
            let stored = index.entries[redacted.id]?.revision ?? 0
            var next = redacted
            next.revision = min(max(stored, thread.revision), ThreadIndex.maximumRevision) + 1
            return try writeSnapshot(next, into: &index).thread
        }
    }

    /// Reads, changes with `body` and stores the thread `id` while holding the folder lock. A
    /// change that only adds to the thread is appended to its journal (the redactor runs on the
    /// appended record); any other change writes a new snapshot. Throws
    /// ``ChappieThreadStoreError/threadNotFound(_:)``, another ``ChappieThreadStoreError``, or
    /// what `body` throws (then nothing changed).
    @discardableResult
    public func update(id: UUID, _ body: @Sendable (inout ChappieThread) throws -> Void) async throws -> ChappieThread {
        let redactor = redactor
        return try await locked { index in
            var loaded = try loadThread(id, index: &index)
            var thread = loaded.thread
            try body(&thread)
            thread = thread.withoutAttachmentData
            thread.id = id
            let revision = loaded.thread.revision + 1
            if loaded.thread.formatVersion == ChappieThread.currentFormatVersion,
               let record = ThreadJournal.record(from: loaded.thread, to: thread, revision: revision) {
                let redacted = try ThreadCoding.redacted(record, with: redactor)
                // Unredacted, the record leaves the thread as `body` made it: keep that one
                // instead of applying the record to another copy.
                thread.revision = revision
                return try append(redacted, to: &loaded, resulting: redacted == record ? thread : nil, into: &index).thread
            }
            var next = try ThreadCoding.redacted(thread, with: redactor)
            next.revision = revision
            return try writeSnapshot(next, into: &index).thread
        }
    }

    /// Appends one turn to the thread `id` as one journal record, without comparing or copying
    /// the rest of the thread (see ``ChappieThreadStore/appendTurn(_:transcriptItems:model:contextUpdatedAt:to:expectedTurnCount:)``).
    /// Throws ``ChappieThreadStoreError/threadChangedElsewhere(_:)`` or another
    /// ``ChappieThreadStoreError``; then nothing changed.
    @discardableResult
    public func appendTurn(_ turn: ChappieThreadTurn, transcriptItems: [ChappieTranscriptItem], model: String, contextUpdatedAt: Date,
                           to id: UUID, expectedTurnCount: Int) async throws -> ChappieThread {
        let redactor = redactor
        var turn = turn
        turn.input = turn.input.map(\.withoutAttachmentData)
        let transcriptItems = transcriptItems.map(\.withoutAttachmentData)
        return try await locked { index in
            var loaded = try loadThread(id, index: &index)
            guard loaded.thread.turns.count == expectedTurnCount else { throw ChappieThreadStoreError.threadChangedElsewhere(id) }
            guard loaded.thread.formatVersion == ChappieThread.currentFormatVersion else {
                // A thread from before journals: rewritten whole, once, in the current format.
                var thread = loaded.thread
                thread.addTurn(turn, transcriptItems: transcriptItems, model: model, contextUpdatedAt: contextUpdatedAt)
                var next = try ThreadCoding.redacted(thread, with: redactor)
                next.revision = loaded.thread.revision + 1
                return try writeSnapshot(next, into: &index).thread
            }
            var record = ThreadJournal.Record(revision: loaded.thread.revision + 1, after: loaded.thread, compactedSummary: nil,
                                              transcript: transcriptItems, turns: [turn], compactions: [])
            record.model = model
            record.contextModel = model
            record.contextUpdatedAt = contextUpdatedAt
            record.updatedAt = turn.endedAt
            record = try ThreadCoding.redacted(record, with: redactor)
            // The cache lets go of the thread, so the record is applied to it in place.
            forget(id)
            return try append(record, to: &loaded, resulting: nil, into: &index).thread
        }
    }

    /// The stored thread `id`. Throws ``ChappieThreadStoreError/threadNotFound(_:)``,
    /// ``ChappieThreadStoreError/corruptThread(_:reason:)`` (the file was set aside) or another
    /// ``ChappieThreadStoreError``.
    public func thread(id: UUID) async throws -> ChappieThread {
        if files.folderIsMissing() { throw ChappieThreadStoreError.threadNotFound(id) }
        return try await locked { index in try loadThread(id, index: &index).thread }
    }

    /// Summaries from the index, most recent first; archived ones only when `includingArchived`.
    /// Checks each thread's files' size and identity against the index (no thread is read unless
    /// it changed behind the index's back). A folder that does not exist yet lists nothing and is
    /// not created. Throws ``ChappieThreadStoreError``.
    public func threads(includingArchived: Bool) async throws -> [ChappieThreadSummary] {
        if files.folderIsMissing() { return [] }
        return try await locked(reconciling: true) { index in
            index.entries.values.map(\.summary).filter { includingArchived || !$0.archived }.sortedByRecency()
        }
    }

    /// Deletes the thread `id`; a missing thread is not an error. Throws ``ChappieThreadStoreError``.
    public func delete(id: UUID) async throws {
        try await locked { index in
            // The snapshot first: a journal left without it is set aside, never applied.
            try files.remove(Self.fileName(for: id))
            try files.remove(Self.journalName(for: id))
            index.entries[id] = nil
            forget(id)
        }
    }

    /// Bytes the thread files use against the policy's cap. Throws ``ChappieThreadStoreError``.
    public func usage() async throws -> ChappieThreadStoreUsage {
        if files.folderIsMissing() { return ChappieThreadStoreUsage(bytesUsed: 0, byteCap: storagePolicy.byteCap, threadCount: 0) }
        return try await locked(reconciling: true) { index in
            ChappieThreadStoreUsage(bytesUsed: index.bytesUsed, byteCap: storagePolicy.byteCap, threadCount: index.entries.count)
        }
    }

    /// Problems found since this instance was created, oldest first.
    public func issues() async -> [ChappieThreadStoreIssue] { foundIssues }

    // MARK: Locked work

    /// Runs `body` with the index while holding the folder lock, then stores the index if it
    /// changed (also when `body` throws, so a correction is not lost). The first call of an
    /// instance creates the folder (as does any call after the folder was removed), removes stale
    /// temporary files and reconciles the index with the folder; `reconciling` reconciles again.
    private func locked<Result>(reconciling: Bool = false, _ body: (inout ThreadIndex) throws -> Result) async throws -> Result {
        if !opened || !files.folderExists() {
            try files.prepareFolder()
            if opened {
                cachedIndex = nil
                forgetAll()
            }
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
                try? store(index, loaded: loaded)
                throw error
            }
            try store(index, loaded: loaded)
            return result
        }
    }

    /// Keeps `index` after a locked call: written out when it changed in a way readers cannot
    /// work out from the files, otherwise (nothing changed, or threads only gained journal
    /// records) kept in memory only, so a turn costs no index write.
    private func store(_ index: ThreadIndex, loaded: (value: ThreadIndex, rebuilt: Bool, identity: ThreadFileSystem.FileIdentity?)) throws {
        if !loaded.rebuilt && index == loaded.value { return }
        if loaded.rebuilt || index.needsWriting(comparedTo: loaded.value) {
            try saveIndex(index)
        } else if let identity = loaded.identity {
            cachedIndex = (index, identity)
        }
    }

    /// The stored index (from the cache when the file has not changed since this instance last
    /// read or wrote it); `rebuilt` when it was missing or damaged (then it starts empty) or had
    /// entries that did not match their files (then those are left out and re-read).
    private func loadIndex() -> (value: ThreadIndex, rebuilt: Bool, identity: ThreadFileSystem.FileIdentity?) {
        let name = ThreadFileSystem.Names.index
        if let cachedIndex, cachedIndex.file == files.identity(of: name) { return (cachedIndex.index, false, cachedIndex.file) }
        cachedIndex = nil
        do {
            guard let (data, identity) = try files.read(name, maximumBytes: Self.maximumThreadFileBytes) else {
                return (ThreadIndex(), true, nil)
            }
            if let index = ThreadIndex.decode(data) {
                if index.dropped > 0 {
                    report(.indexRebuilt, id: nil, name: name,
                           detail: "\(index.dropped) index entries did not match their thread files and were rebuilt")
                    return (index, true, identity)
                }
                cachedIndex = (index, identity)
                return (index, false, identity)
            }
            report(.indexRebuilt, id: nil, name: name, detail: "the index was damaged and was rebuilt from the thread files")
        } catch {
            report(.indexRebuilt, id: nil, name: name, detail: "the index could not be read and was rebuilt: \(Self.describe(error))")
        }
        return (ThreadIndex(), true, nil)
    }

    /// Writes the index atomically and caches it. The index is a cache of the thread files
    /// (rebuilt from them when lost), so it is not fsynced: that keeps a turn's cost to the one
    /// fsync of its journal record. Throws ``ChappieThreadStoreError``.
    private func saveIndex(_ index: ThreadIndex) throws {
        cachedIndex = nil
        let identity = try files.write(try index.encoded(reusing: &encodedEntries), to: ThreadFileSystem.Names.index, durable: false)
        cachedIndex = (index, identity)
    }

    /// Brings the index in line with the folder: drops entries whose snapshot is gone, re-reads
    /// threads whose snapshot or journal changed, adds threads the index lacks, and sets aside
    /// journals whose snapshot is gone.
    private func reconcile(_ index: inout ThreadIndex) {
        var snapshots: [UUID: String] = [:]
        var journals: Set<UUID> = []
        for name in files.fileNames() {
            if let id = Self.threadID(fromFileName: name) {
                snapshots[id] = name
            } else if let id = Self.threadID(fromJournalName: name) {
                journals.insert(id)
            } else if !Self.isOwnName(name), !reportedNames.contains(name) {
                reportedNames.insert(name)
                report(.foreignFile, id: nil, name: name, detail: "a file the store did not write; left alone")
            }
        }
        for (id, name) in snapshots {
            // The folder listing says whether anything is at the journal's name (a FIFO included).
            let hasJournal = journals.contains(id)
            let journal = hasJournal ? files.identity(of: Self.journalName(for: id)) : nil
            if let entry = index.entries[id], entry.file == files.identity(of: name) {
                if entry.journal == journal, journal != nil || !hasJournal { continue }
                // The thread gained journal records since the entry was written: read just those.
                if let journal, let caughtUp = catchUp(entry, journal: journal) {
                    index.entries[id] = caughtUp
                    continue
                }
            }
            index.entries[id] = nil
            _ = try? loadThread(id, index: &index)
        }
        for id in journals where snapshots[id] == nil {
            let name = Self.journalName(for: id)
            if let aside = try? setAside(name, id: id) {
                report(.journalSetAside, id: id, name: name, detail: "a journal without its thread's snapshot; moved aside unchanged",
                       setAsideAs: aside)
            }
        }
        for id in index.entries.keys where snapshots[id] == nil {
            index.entries[id] = nil
        }
    }

    // MARK: Reading threads

    /// A thread as read from (or written to) its files, with the file state it matches.
    private struct LoadedThread {
        var thread: ChappieThread
        /// The snapshot file.
        var snapshot: ThreadFileSystem.FileIdentity
        /// The journal file, when there is one.
        var journal: ThreadFileSystem.FileIdentity?
        /// Bytes of the journal that hold whole records: where the next record goes (anything
        /// after it is a torn append).
        var journalLength: Int
        /// `thread.context.messageCount`, kept so a turn does not recount the transcript.
        var messageCount: Int

        /// Bytes on disk: the snapshot and the whole journal.
        var bytes: Int { snapshot.bytes + (journal?.bytes ?? 0) }

        /// The index entry for this state.
        var entry: ThreadIndex.Entry {
            let summary = ChappieThreadSummary(id: thread.id, title: thread.title, model: thread.model, createdAt: thread.createdAt,
                                               updatedAt: thread.updatedAt, archived: thread.archived, messageCount: messageCount,
                                               turnCount: thread.turns.count, byteCount: bytes)
            return ThreadIndex.Entry(summary: summary, revision: thread.revision, file: snapshot, journal: journal,
                                     journalLength: journal == nil ? nil : journalLength)
        }
    }

    /// Thread `id` as stored: from memory when its files have not changed since this instance
    /// last read or wrote them, reading only the new records when just its journal grew, and
    /// from the files otherwise. Refreshes its index entry. A damaged snapshot is moved aside
    /// and reported, and its entry dropped. Throws ``ChappieThreadStoreError``.
    private func loadThread(_ id: UUID, index: inout ThreadIndex) throws -> LoadedThread {
        if var loaded = loadedThreads[id], loaded.snapshot == files.identity(of: Self.fileName(for: id)) {
            let journal = files.identity(of: Self.journalName(for: id))
            if journal == loaded.journal || (journal != nil && catchUp(&loaded, journal: journal)) {
                remember(loaded)
                index.entries[id] = loaded.entry
                return loaded
            }
        }
        forget(id)
        let loaded = try readThread(id, index: &index)
        remember(loaded)
        index.entries[id] = loaded.entry
        return loaded
    }

    /// Applies the records another writer appended to `loaded`'s journal since this instance
    /// saw it; false when the journal changed in any other way (then it must be read whole).
    private func catchUp(_ loaded: inout LoadedThread, journal identity: ThreadFileSystem.FileIdentity?) -> Bool {
        guard let identity, loaded.journal == nil || loaded.journal?.inode == identity.inode, identity.bytes >= loaded.journalLength,
              let (data, read) = try? files.read(Self.journalName(for: loaded.thread.id), from: loaded.journalLength,
                                                  maximumBytes: Self.maximumThreadFileBytes) else { return false }
        let parsed = ThreadJournal.parse(data, base: loaded.thread.revision)
        guard parsed.damagedAt == nil else { return false }
        for record in parsed.records {
            record.apply(to: &loaded.thread)
            loaded.messageCount += record.messageCount
        }
        loaded.journal = read
        loaded.journalLength += parsed.validLength
        return true
    }

    /// `entry` brought up to date with the records appended to its thread's journal since it
    /// was written, reading only those; nil when the journal changed in another way (replaced,
    /// cut, damaged), so the thread must be read.
    private func catchUp(_ entry: ThreadIndex.Entry, journal identity: ThreadFileSystem.FileIdentity) -> ThreadIndex.Entry? {
        let length = entry.journalLength ?? 0
        guard entry.journal == nil || entry.journal?.inode == identity.inode, identity.bytes >= length,
              let (data, read) = try? files.read(Self.journalName(for: entry.summary.id), from: length, maximumBytes: Self.maximumThreadFileBytes)
        else { return nil }
        let parsed = ThreadJournal.parse(data, base: entry.revision)
        guard parsed.damagedAt == nil, !(parsed.onlyStale && length == 0 && !data.isEmpty) else { return nil }
        return entry.applying(parsed.records, journal: read, length: length + parsed.validLength)
    }

    /// Reads thread `id` from its snapshot and journal. Throws ``ChappieThreadStoreError``.
    private func readThread(_ id: UUID, index: inout ThreadIndex) throws -> LoadedThread {
        let name = Self.fileName(for: id)
        let journalName = Self.journalName(for: id)
        guard let (data, identity) = try readChecked(name, id: id, index: &index) else {
            index.entries[id] = nil
            throw ChappieThreadStoreError.threadNotFound(id)
        }
        var thread: ChappieThread
        switch ThreadCoding.decode(data, expectedID: id) {
        case .thread(let decoded):
            thread = decoded
        case .unsupported(let version):
            index.entries[id] = nil
            reportOnce(.unsupportedFormat, id: id, name: name, detail: "written by a newer version (format \(version)); left alone")
            throw ChappieThreadStoreError.unsupportedFormatVersion(id, version: version)
        case .corrupt(let reason):
            index.entries[id] = nil
            let aside = try setAside(name, id: id)
            report(.corruptThread, id: id, name: name, detail: reason, setAsideAs: aside)
            if files.identity(of: journalName) != nil, let journalAside = try? setAside(journalName, id: id) {
                report(.journalSetAside, id: id, name: journalName, detail: "the journal of a damaged thread; moved aside unchanged",
                       setAsideAs: journalAside)
            }
            throw ChappieThreadStoreError.corruptThread(id, reason: reason)
        }
        var loaded = LoadedThread(thread: thread, snapshot: identity, journal: nil, journalLength: 0,
                                  messageCount: thread.context.messageCount)
        guard let (journalData, journalIdentity) = try readChecked(journalName, id: id, index: &index) else { return loaded }
        let parsed = ThreadJournal.parse(journalData, base: thread.revision)
        for record in parsed.records {
            record.apply(to: &thread)
            loaded.messageCount += record.messageCount
        }
        loaded.thread = thread
        if let damagedAt = parsed.damagedAt {
            // Keep every whole record before the damage in a new snapshot, and the journal as it
            // was, unchanged, in `damaged/`.
            loaded = try writeSnapshot(thread, into: &index, keepingJournal: true)
            let aside = try setAside(journalName, id: id)
            report(.journalSetAside, id: id, name: journalName,
                   detail: "the journal is damaged at byte \(damagedAt); the \(parsed.records.count) records before it were kept",
                   setAsideAs: aside)
        } else if parsed.onlyStale && parsed.validLength == journalData.count {
            // Records a snapshot already holds (its writer stopped before removing the journal).
            try? files.remove(journalName)
        } else {
            loaded.journal = journalIdentity
            loaded.journalLength = parsed.validLength
        }
        return loaded
    }

    /// `files.read` of one of thread `id`'s files, reporting files that are refused (insecure,
    /// a link, not a plain file) and dropping the thread's index entry then. Throws
    /// ``ChappieThreadStoreError``.
    private func readChecked(_ name: String, id: UUID, index: inout ThreadIndex) throws -> (data: Data, identity: ThreadFileSystem.FileIdentity)? {
        do {
            return try files.read(name, maximumBytes: Self.maximumThreadFileBytes)
        } catch let error as ChappieThreadStoreError {
            index.entries[id] = nil
            switch error {
            case .insecurePermissions:
                reportOnce(.insecureFile, id: id, name: name, detail: "the file is accessible by others or not owned by you; not read")
            case .symbolicLinkRefused:
                reportOnce(.insecureFile, id: id, name: name, detail: "the file is a symbolic link; not followed")
            case .io(let message) where message == ThreadFileSystem.notPlainFile(name):
                reportOnce(.insecureFile, id: id, name: name, detail: "not a plain file (a FIFO, device or folder); not read")
            default:
                break
            }
            throw error
        }
    }

    // MARK: Writing threads

    /// Writes `thread` (already redacted, with its new revision) as the thread's snapshot and
    /// removes its journal (folded in), after checking the byte cap; updates the index entry.
    /// `keepingJournal` leaves the journal for the caller to move aside. Throws
    /// ``ChappieThreadStoreError``; nothing changes on error.
    private func writeSnapshot(_ thread: ChappieThread, into index: inout ThreadIndex, keepingJournal: Bool = false) throws -> LoadedThread {
        var thread = thread
        thread.formatVersion = ChappieThread.currentFormatVersion
        let data = try ThreadCoding.encode(thread)
        let name = Self.fileName(for: thread.id)
        let journalName = Self.journalName(for: thread.id)
        let journal = keepingJournal ? nil : files.identity(of: journalName)
        let replaced = (files.identity(of: name)?.bytes ?? 0) + (journal?.bytes ?? 0)
        let others = othersBytes(thread.id, in: index)
        let needed = Self.sum(others, data.count)
        if needed > storagePolicy.byteCap && data.count > replaced {
            throw ChappieThreadStoreError.byteCapExceeded(bytesNeeded: needed, bytesUsed: Self.sum(others, replaced), byteCap: storagePolicy.byteCap)
        }
        let identity = try files.write(data, to: name)
        // The snapshot holds every record now; a journal that cannot be removed only holds
        // records older than it, which loading skips.
        if journal != nil { try? files.remove(journalName) }
        let loaded = LoadedThread(thread: thread, snapshot: identity, journal: nil, journalLength: 0,
                                  messageCount: thread.context.messageCount)
        remember(loaded)
        index.entries[thread.id] = loaded.entry
        return loaded
    }

    /// Appends `record` (already redacted) to `next`'s journal after checking the byte cap, applies it to `next` in place,
    /// folds the journal into a new snapshot once it outgrows the snapshot, and updates the index
    /// entry. `resulting` is the thread with the record applied, when the caller has it. Throws
    /// ``ChappieThreadStoreError``; on error the files are as they were.
    private func append(_ record: ThreadJournal.Record, to next: inout LoadedThread, resulting: ChappieThread?,
                        into index: inout ThreadIndex) throws -> LoadedThread {
        let id = next.thread.id
        let line = try ThreadJournal.line(record)
        let others = othersBytes(id, in: index)
        let needed = Self.sum(others, next.snapshot.bytes + next.journalLength + line.count)
        if needed > storagePolicy.byteCap {
            throw ChappieThreadStoreError.byteCapExceeded(bytesNeeded: needed, bytesUsed: Self.sum(others, next.bytes),
                                                          byteCap: storagePolicy.byteCap)
        }
        let identity = try files.append(line, to: Self.journalName(for: id), at: next.journalLength)
        if var resulting {
            resulting.formatVersion = next.thread.formatVersion
            next.thread = resulting
        } else {
            record.apply(to: &next.thread)
        }
        next.messageCount += record.messageCount
        next.journal = identity
        next.journalLength += line.count
        if next.journalLength > max(next.snapshot.bytes, Self.minimumFoldBytes),
           let folded = try? writeSnapshot(next.thread, into: &index) {
            return folded
        }
        remember(next)
        index.entries[id] = next.entry
        return next
    }

    /// Bytes used by every thread but `id`, by the index.
    private func othersBytes(_ id: UUID, in index: ThreadIndex) -> Int {
        max(0, index.bytesUsed - max(0, index.entries[id]?.summary.byteCount ?? 0))
    }

    /// `a + b`, or `Int.max` when that overflows.
    private static func sum(_ a: Int, _ b: Int) -> Int {
        let (total, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int.max : total
    }

    // MARK: Cache

    private func remember(_ loaded: LoadedThread) {
        let id = loaded.thread.id
        loadedThreads[id] = loaded
        loadOrder.removeAll { $0 == id }
        loadOrder.append(id)
        while loadOrder.count > Self.cachedThreadCount {
            loadedThreads[loadOrder.removeFirst()] = nil
        }
    }

    private func forget(_ id: UUID) {
        loadedThreads[id] = nil
        loadOrder.removeAll { $0 == id }
    }

    private func forgetAll() {
        loadedThreads.removeAll()
        loadOrder.removeAll()
    }

    /// Moves a damaged file into `damaged/` and returns its new relative path. Throws
    /// ``ChappieThreadStoreError/io(_:)``.
    private func setAside(_ name: String, id: UUID) throws -> String {
        try files.prepareFolder(ThreadFileSystem.Names.quarantine)
        let stamp = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        let suffix = name.hasSuffix(ThreadFileSystem.Names.journalSuffix) ? ThreadFileSystem.Names.journalSuffix : ThreadFileSystem.Names.threadSuffix
        let aside = "\(ThreadFileSystem.Names.quarantine)/\(id.uuidString.lowercased())-\(stamp)-\(UUID().uuidString.prefix(8).lowercased())\(suffix)"
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

    /// `<uuid>.json`, lower case: the thread's snapshot.
    static func fileName(for id: UUID) -> String {
        id.uuidString.lowercased() + ThreadFileSystem.Names.threadSuffix
    }

    /// `<uuid>.journal`, lower case: the thread's journal.
    static func journalName(for id: UUID) -> String {
        id.uuidString.lowercased() + ThreadFileSystem.Names.journalSuffix
    }

    /// The thread id of a file named by ``journalName(for:)``, or nil.
    static func threadID(fromJournalName name: String) -> UUID? {
        let suffix = ThreadFileSystem.Names.journalSuffix
        guard name.hasSuffix(suffix), name.count == 36 + suffix.count,
              let id = UUID(uuidString: String(name.dropLast(suffix.count))), journalName(for: id) == name else { return nil }
        return id
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
