import Dispatch
import Foundation
import MediaAssets
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A `CacheBackend` that keeps every entry, bytes and metadata, in one SQLite database file.
///
/// ```swift
/// manager.register(try SQLiteBackend(path: cacheFile), for: .custom("sqlite"))
/// manager.register(try SQLiteBackend(path: cacheFile), for: .disk)  // in place of the file cache
/// ```
///
/// - One table, one row per entry; keys are stored as the UTF-8 bytes of the key, so any key
///   (NUL, `/`, emoji, 10 000 characters) is a key and never a path. A row's rowid comes from its
///   key's hash (schema version 6), so a hit is one search of one B-tree; keys whose hashes collide
///   take the next rowids and are told apart by the stored key. Dates round-trip exactly.
/// - Reads run on connections of their own, which never wait behind a write or an access-time save
///   (WAL readers see the last commit). An entry of at most `Configuration.largestInlineRead` bytes
///   is read on the caller's thread, from the memory-mapped file, with no hand-off to another
///   thread; a larger one on the backend's read queue, off Swift's cooperative pool.
/// - Every store is one transaction (`BEGIN IMMEDIATE` … `COMMIT`): delete the old row, insert the
///   new one, evict if needed. If anything fails it rolls back and the old entry is intact. Writes
///   run one at a time on the backend's write queue, never on the caller's executor.
/// - `updateMetadata(_:forKey:)` (a 304) updates the metadata columns of the row and writes none of
///   its bytes again.
/// - The size limit holds after every write, twice over: the entries' data bytes stay within it, and
///   so do the files on disk (database, WAL, shared memory and a small reserve file; see
///   `Configuration.sizeLimit`). A write that passes either evicts least recently used rows down to
///   the low-water mark, in the same transaction. The count and total size live in memory (read from
///   a one-row table that triggers keep), so neither a write nor opening scans the table. On a full
///   filesystem the reserve is released so that deletes (and stores, by evicting) can still run.
/// - Reads record their access time in memory; the times are written in one transaction per batch,
///   on the write queue, before a sweep, on `flushAccessTimes()` and at close — never one write per
///   read. A read of a row stored in the newer half of the span from the oldest saved access time to
///   now records nothing, and a save skips rows whose saved time is in that half: no sweep reaches
///   them before every older row, and saving would cost a write.
/// - Opening never wipes a file it does not recognise: a file that is not a SQLite database, a
///   database of another program, or one from a newer version throws a `SQLiteError` and is left
///   untouched. Files of older versions are upgraded in place.
/// - Pins (`pin(_:)`) live in the file (a `pins` table of rules and a `pinned_entries` table of the
///   rows they cover); sweeps skip pinned rows, which count against `Configuration.pinnedQuota`
///   within the size limit, and every process using the file sees them.
/// - Several processes (or backends) may use one file at once, so workers on one machine share a
///   cache without a server: locks are held only for a transaction (others wait up to
///   `Configuration.busyTimeout`, also when several open a new file at the same moment), and a
///   write first reads the count and size again if another process has committed since, so
///   eviction and statistics count every process's entries.
/// - The database runs in WAL mode with `synchronous = NORMAL`: a crash keeps the file consistent
///   and may lose the last few writes, which a cache fetches again.
public final class SQLiteBackend: CacheBackend {
    /// The backend's configuration.
    public let configuration: Configuration

    /// The size limit of the stored entries' bytes.
    public var byteLimit: Int? { configuration.sizeLimit }
    /// The database file.
    package var path: URL { configuration.path }

    let filePath: String
    /// The writer. Only ever taken on `queue`, which already runs one block at a time, so it is
    /// never contended: the mutex is how the compiler knows the connection is used by one thread at
    /// a time.
    let store: Mutex<SQLiteStore>
    /// The write queue: stores, removals, access-time saves and maintenance, one at a time.
    let queue = DispatchQueue(label: "MediaAssets.SQLiteBackend")
    /// Reads of entries larger than `Configuration.largestInlineRead`, and reads that must wait for
    /// a lock (another process recovering the WAL after a crash).
    let readQueue = DispatchQueue(label: "MediaAssets.SQLiteBackend.reads")
    /// The read connections.
    let readers: SQLiteReaderPool
    /// What reads leave for the writer: access times, hit and miss counts.
    let readLog: SQLiteReadLog

    /// Opens the database at `configuration.path`, creating it (and its directory) if missing.
    ///
    /// Opening checks the file's schema and reads the stored count and size (one row, whatever the
    /// number of entries); it runs on the caller's thread, so open the backend once, at start-up.
    /// A file of an older schema version is upgraded first, which rewrites every row once.
    ///
    /// - Throws: `SQLiteError.notADatabase`, `.foreignDatabase`, `.newerSchemaVersion` or `.locked`
    ///   for a file that cannot be used (it is left untouched), `SQLiteError.cannotOpen` if SQLite
    ///   cannot open the path, `AssetsError.directoryUnavailable` if the directory cannot be created.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        let filePath = configuration.path.standardizedFileURL.path
        self.filePath = filePath
        try Self.createFileIfMissing(filePath)
        readLog = SQLiteReadLog(accessTimeBatchSize: configuration.accessTimeBatchSize)
        let store = try SQLiteStore(configuration: configuration, path: filePath, readLog: readLog)
        let mappedBytes = store.mappedBytes
        self.store = Mutex(store)
        let busyTimeout = configuration.busyTimeout
        readers = SQLiteReaderPool(path: filePath, idleLimit: ProcessInfo.processInfo.activeProcessorCount + 1) {
            try SQLiteReader(path: filePath, mappedBytes: mappedBytes, busyTimeout: busyTimeout)
        }
    }

    /// Opens (creating if needed) the database file at `path` with a size limit in bytes of data.
    public convenience init(path: URL, sizeLimit: Int = 512 << 20) throws {
        try self.init(configuration: Configuration(path: path, sizeLimit: sizeLimit))
    }

    deinit {
        // Queued work and reads retain the backend, so nothing else uses the connections now.
        readers.close()
        store.withLock { $0.close() }
    }

    // MARK: CacheBackend

    /// Stores `entry` in one transaction, evicting least recently used rows if the limit is passed.
    ///
    /// An entry larger than the whole limit is not stored: the older entry for `key` is removed
    /// and `CacheStatistics.rejectedTooLarge` counts it.
    ///
    /// - Throws: `AssetsError.writeFailed`; the previous entry is then intact.
    public func store(_ entry: CacheEntry, forKey key: CacheKey) async throws {
        try await perform(failure: writeFailed(key)) { try $0.writeEntry(entry, forKey: key) }
    }

    /// Stores every entry of `batch` in one transaction when they fit within the limit without
    /// evicting, else one transaction each (as `store(_:forKey:)`); benchmarks fill large files
    /// with it.
    package func storeInOneTransaction(_ batch: [(key: CacheKey, entry: CacheEntry)]) async throws {
        try await perform(failure: writeFailed(batch.first?.key ?? "")) { try $0.writeEntries(batch) }
    }

    /// Replaces the metadata of the live row for `key` in one `UPDATE` of its metadata columns: its
    /// bytes, its access time and the totals stay. Returns false (changing nothing) when no live row
    /// holds `key`.
    ///
    /// - Throws: `AssetsError.writeFailed`; the row is then as it was.
    public func updateMetadata(_ metadata: CacheMetadata, forKey key: CacheKey) async throws -> Bool {
        try await perform(failure: writeFailed(key)) { try $0.updateMetadata(metadata, forKey: key) }
    }

    /// Removes the row for `key`.
    public func removeEntry(forKey key: CacheKey) async throws {
        try await perform(failure: removeFailed) { try $0.removeEntry(forKey: key) }
    }

    /// Removes the rows `selection` takes in one statement (one transaction: an asset's rows go
    /// together), found through an index (key ranges of the primary key, or the partition index); no
    /// blob is read.
    public func removeEntries(_ selection: EntrySelection) async throws {
        try await perform(failure: removeFailed) { try $0.removeEntries(selection) }
    }

    /// Removes every row and shrinks the file.
    public func removeAll() async throws {
        try await perform(failure: removeFailed) { try $0.removeAll() }
    }

    /// Removes rows whose `expires` has passed, with one statement over the expiry index.
    public func removeExpired() async throws {
        try await perform(failure: removeFailed) { try $0.removeExpired() }
    }

    /// A snapshot of the counters; `bytes` and `cost` are the entries' data bytes.
    public func statistics() async -> CacheStatistics {
        (try? await perform(failure: removeFailed) { $0.snapshot() }) ?? CacheStatistics()
    }

    // MARK: Maintenance

    /// Writes the last-access times that reads keep in memory, in one transaction.
    package func flushAccessTimes() async {
        _ = try? await perform(failure: removeFailed) { try $0.flushAccessTimes() }
    }

    /// Saves pending access times and closes the database; later operations throw
    /// `AssetsError.closed`. Closing twice does nothing.
    ///
    /// Deinitialising the backend closes it too; call this to release the file at a known time.
    public func close() async {
        readers.close()
        _ = try? await perform(failure: removeFailed) { $0.close() }
    }

    /// Checks the in-memory count and size against the table, the size limit, and the file's
    /// structure (`PRAGMA quick_check`); tests call this after mutations.
    package func checkInvariants() async {
        _ = try? await perform(failure: removeFailed) { try $0.checkInvariants() }
    }

    /// Test hook: the number of reads whose access time is held in memory, not yet written.
    func _unsavedAccessCount() async -> Int {
        (try? await perform(failure: removeFailed) { $0.readLog.unsavedAccessCount }) ?? 0
    }

    /// Test hook: how many reads were handed to the read queue.
    var _readHandOffs: Int { readLog.state.withLock { $0.handOffs } }

    /// Test hook: makes the next store fail inside its transaction, after the old row is deleted.
    func _failNextWrite() async {
        _ = try? await perform(failure: removeFailed) { $0.failsNextWrite = true }
    }

    // MARK: Internals

    /// Runs `work` with the store on the write queue; SQLite failures become `failure(reason)`,
    /// `AssetsError`s (a closed backend) pass through.
    func perform<T: Sendable>(
        failure: @escaping @Sendable (String) -> AssetsError,
        _ work: @escaping @Sendable (SQLiteStore) throws -> T
    ) async throws -> T {
        try await on(queue) { [self] in try reporting(failure) { try store.withLock { try work($0) } } }
    }

    /// Runs blocking `work` on `queue` and resumes the caller with its result.
    func on<T: Sendable>(_ queue: DispatchQueue, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Runs `work`, turning SQLite failures into `failure(reason)`; `AssetsError`s pass through.
    func reporting<T>(_ failure: (String) -> AssetsError, _ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch let error as AssetsError {
            throw error
        } catch {
            throw failure(Self.clause(error))
        }
    }

    /// An error's text without its closing full stop: it becomes the reason inside another
    /// sentence, which has its own.
    private static func clause(_ error: any Error) -> String {
        let text = String(describing: error)
        return text.hasSuffix(".") ? String(text.dropLast()) : text
    }

    func readFailed(_ key: CacheKey) -> @Sendable (String) -> AssetsError {
        { [filePath] in AssetsError.readFailed(key: key, path: filePath, reason: $0) }
    }

    func writeFailed(_ key: CacheKey) -> @Sendable (String) -> AssetsError {
        { [filePath] in AssetsError.writeFailed(key: key, path: filePath, reason: $0) }
    }

    var removeFailed: @Sendable (String) -> AssetsError {
        { [filePath] in AssetsError.removeFailed(path: filePath, reason: $0) }
    }

    /// Creates the directory (mode 0700) and an empty file (mode 0600), so that SQLite's files are
    /// private to the user; SQLite gives its WAL file the database's mode.
    private static func createFileIfMissing(_ path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try PrivateDirectory.create(directory)
        // O_EXCL: an existing file is never truncated; any failure here is SQLite's to report.
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 { POSIX.close(descriptor) }
    }
}
