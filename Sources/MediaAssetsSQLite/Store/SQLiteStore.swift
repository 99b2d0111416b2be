import Foundation
import MediaAssets

/// The connection, its prepared statements and the bookkeeping kept in memory beside them.
///
/// Not thread-safe: `SQLiteBackend` keeps it in a `Mutex` that only its serial queue takes, so
/// every use is serialised and the lock is never contended.
final class SQLiteStore {
    /// The statements compiled at open and reused for every operation.
    struct Statements {
        let select: SQLiteStatement
        let insert: SQLiteStatement
        let deleteByKey: SQLiteStatement
        let deleteByRowID: SQLiteStatement
        let deleteExpired: SQLiteStatement
        let deleteAll: SQLiteStatement
        let updateLastAccess: SQLiteStatement
        let selectLeastRecent: SQLiteStatement
        let sums: SQLiteStatement
        let oldestAccess: SQLiteStatement
        let dataVersion: SQLiteStatement
        let pageCount: SQLiteStatement
        let freelistCount: SQLiteStatement
        let begin: SQLiteStatement
        let commit: SQLiteStatement
        let rollback: SQLiteStatement

        init(_ connection: SQLiteConnection) throws {
            select = try connection.prepare(
                """
                SELECT entries.rowid, entries.size, created, entries.last_access, expires, fresh_until, etag,
                    last_modified, content_type, data, partition_name, stale_while_revalidate_until,
                    stale_if_error_until, access_order.last_access
                    FROM entries JOIN access_order ON access_order.entry = entries.rowid WHERE key = ?1
                """,
                operation: "read an entry"
            )
            insert = try connection.prepare(
                """
                INSERT INTO entries (key, size, created, last_access, expires, fresh_until, etag,
                    last_modified, content_type, data, partition_name, stale_while_revalidate_until,
                    stale_if_error_until)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
                """,
                operation: "store an entry"
            )
            deleteByKey = try connection.prepare(
                "DELETE FROM entries WHERE key = ?1 RETURNING rowid, size", operation: "remove an entry"
            )
            deleteByRowID = try connection.prepare("DELETE FROM entries WHERE rowid = ?1", operation: "evict an entry")
            deleteExpired = try connection.prepare(
                "DELETE FROM entries WHERE expires <= ?1 RETURNING rowid, size", operation: "remove expired entries"
            )
            deleteAll = try connection.prepare("DELETE FROM entries", operation: "remove all entries")
            updateLastAccess = try connection.prepare(
                "UPDATE access_order SET last_access = ?2 WHERE entry = ?1", operation: "save last-access times"
            )
            // Pinned rows are never evicted; the lookup per row is in a table as small as the pins.
            selectLeastRecent = try connection.prepare(
                """
                SELECT entry, size FROM access_order INDEXED BY access_order_by_time
                    WHERE entry NOT IN (SELECT entry FROM pinned_entries) ORDER BY last_access
                """,
                operation: "find least recently used entries"
            )
            // One row the triggers keep: no scan at open or after another process's write.
            sums = try connection.prepare(
                "SELECT entries, bytes FROM totals WHERE only = 1",
                operation: "sum the cache's size"
            )
            oldestAccess = try connection.prepare(
                "SELECT MIN(last_access) FROM access_order", operation: "find the oldest access time"
            )
            dataVersion = try connection.prepare("PRAGMA data_version", operation: "check for other writers")
            pageCount = try connection.prepare("PRAGMA page_count", operation: "count the file's pages")
            freelistCount = try connection.prepare("PRAGMA freelist_count", operation: "count the free pages")
            begin = try connection.prepare("BEGIN IMMEDIATE", operation: "begin a transaction")
            commit = try connection.prepare("COMMIT", operation: "commit a transaction")
            rollback = try connection.prepare("ROLLBACK", operation: "roll back a transaction")
        }

        var all: [SQLiteStatement] {
            [
                select, insert, deleteByKey, deleteByRowID, deleteExpired, deleteAll, updateLastAccess,
                selectLeastRecent, sums, oldestAccess, dataVersion, pageCount, freelistCount, begin, commit, rollback,
            ]
        }
    }

    let configuration: SQLiteBackend.Configuration
    let path: String
    let connection: SQLiteConnection
    /// Nil once closed.
    private(set) var statements: Statements?

    /// The sum of `size` over all rows, kept in memory; read again (from the `totals` row) when
    /// another process has written the file.
    var totalBytes = 0
    /// The number of rows.
    var count = 0
    /// Hits, misses, writes, evictions and rejections since open.
    var counters = CacheStatistics()
    /// Reads not yet written to `access_order`: rowid → time (seconds since the reference date).
    var unsavedAccess: AccessTimeBatch<Int64>
    /// The oldest saved access time, or nil when a delete, a save or another process may have moved
    /// it; reads compare a row's saved time with it (see `readEntry`).
    var oldestSavedAccess: Double?
    /// `PRAGMA data_version` when the totals were last read: it moves when another connection
    /// (another process) commits, and only then.
    private var seenDataVersion: Int64?
    /// How the size limit is shared among the files (set at open, from the file's page size).
    private(set) var budget: SQLiteDiskBudget
    /// Whether the reserve file (released on a full filesystem) is in place.
    var hasReserve = false
    /// The reserve file's size when in place (smaller than budgeted on a small or full filesystem).
    var reserveBytes = 0
    /// Test hook: the next store fails inside its transaction, after the old row was deleted.
    var failsNextWrite = false
    /// The pin rules, read again with the totals when another process has written the file.
    var pins = PinSet()
    /// The statements of pins and asset selections, compiled when first needed.
    var pinStatements: PinStatements?
    /// The pinned rows' count and size as last summed; nil when a change may have moved them.
    var pinnedTotalsCache: (count: Int, bytes: Int)?

    /// Opens the database, checks or creates the schema, and loads the count and total size.
    init(configuration: SQLiteBackend.Configuration, path: String) throws {
        self.configuration = configuration
        self.path = path
        unsavedAccess = AccessTimeBatch(threshold: configuration.accessTimeBatchSize)
        connection = try SQLiteConnection(path: path)
        connection.setBusyTimeout(configuration.busyTimeout)
        try SQLiteSchema.prepare(connection, busyTimeout: configuration.busyTimeout)
        let pageSize = try connection.integers("PRAGMA page_size", operation: "read the page size").first ?? 4_096
        budget = SQLiteDiskBudget(
            sizeLimit: configuration.sizeLimit, lowWaterFraction: configuration.lowWaterFraction,
            pageSize: Int(pageSize), filesystemRoom: Self.filesystemRoom(path: path)
        )
        // Reads of pages in the database file then cost no read() call and no copy into SQLite's
        // page cache (which, at 2 MiB, holds only 125 of our 16 KiB pages). SQLite only reads
        // through the map and writes with write(), so a full filesystem still fails a write cleanly,
        // and it remaps when another process grows or shrinks the file.
        let mapped = min(budget.fileBytes, Self.largestMapping)
        try connection.execute("PRAGMA mmap_size = \(mapped)", operation: "map the file into memory")
        statements = try Statements(connection)
        try SQLiteSchema.classifyingOpenErrors(connection) { try refreshTotalsIfChangedElsewhere() }
        restoreReserveIfMissing()
        // The limit may have been lowered since the file was written.
        try sweep()
        checkpointIfWALOverBudget()
    }

    deinit { close() }

    /// The most of the file mapped into memory: address space, not memory (pages are the kernel's
    /// page cache, shared and reclaimable). SQLite caps it lower if built with a smaller maximum.
    static let largestMapping = 4 << 30

    /// Reads the count and size again if another connection has committed since they were last
    /// read; writes call it inside their transaction, so their eviction sees every process's rows.
    func refreshTotalsIfChangedElsewhere() throws {
        let statements = try openStatements()
        let version = try statements.dataVersion.withReset { query -> Int64 in
            try query.step()
            return query.int64(at: 0)
        }
        guard version != seenDataVersion else { return }
        oldestSavedAccess = nil
        pinnedTotalsCache = nil
        pins = try readPins()
        (count, totalBytes) = try statements.sums.withReset { query in
            try query.step()
            return (Int(query.int64(at: 0)), Int(query.int64(at: 1)))
        }
        seenDataVersion = version
    }

    /// The statements, or `AssetsError.closed` after `close()`.
    func openStatements() throws -> Statements {
        guard let statements else { throw AssetsError.closed(path: path) }
        return statements
    }

    // MARK: Reading

    /// Returns the live entry for `key` and records the access in memory; an expired row is
    /// deleted and is a miss. The flag says a batch of access times is due to be saved.
    func readEntry(forKey key: CacheKey) throws -> (entry: CacheEntry?, needsFlush: Bool) {
        let statements = try openStatements()
        let now = configuration.now()
        // A nil entry is a row whose size disagrees with its bytes (the CHECK constraint makes that
        // impossible unless the file was edited): a miss, like an expired row.
        let found = try statements.select.withReset { query -> FoundRow? in
            try query.bindBlob(utf8Of: key.rawValue, at: 1)
            guard try query.step() else { return nil }
            let savedAccess = query.double(at: 13)
            let data = query.data(at: 9)
            guard query.int64(at: 1) == Int64(data.count) else { return (query.int64(at: 0), savedAccess, nil) }
            let date = { (column: Int32) -> Date? in
                query.optionalDouble(at: column).map(Date.init(timeIntervalSinceReferenceDate:))
            }
            let metadata = CacheMetadata(
                created: Date(timeIntervalSinceReferenceDate: query.double(at: 2)),
                lastAccess: now,
                expires: date(4),
                freshUntil: date(5),
                etag: query.text(at: 6),
                lastModified: query.text(at: 7),
                contentType: query.text(at: 8),
                staleWhileRevalidateUntil: date(11),
                staleIfErrorUntil: date(12),
                partition: query.text(at: 10).map(LRUCacheType.init(rawValue:))
            )
            return (query.int64(at: 0), savedAccess, CacheEntry(data: data, metadata: metadata))
        }
        guard let found else {
            counters.misses += 1
            return (nil, false)
        }
        guard let entry = found.entry, !entry.isExpired(at: now) else {
            counters.misses += 1
            // Still a miss if the delete fails; the next read or removeExpired() tries again.
            try? removeEntry(forKey: key)
            return (nil, false)
        }
        counters.hits += 1
        guard try needsAccessSaved(savedAccess: found.savedAccess, now: now) else { return (entry, false) }
        return (entry, unsavedAccess.record(found.rowID, at: now))
    }

    /// A row `readEntry` found: nil `entry` for a row whose size disagrees with its bytes.
    private typealias FoundRow = (rowID: Int64, savedAccess: Double, entry: CacheEntry?)

    /// Whether a read of a row whose saved access time is `savedAccess` should record a new one.
    ///
    /// A row saved in the newer half of the span from the oldest saved time to now is not: a sweep
    /// takes the oldest rows first, down to the low-water mark, so it reaches this row only after
    /// every row older than the midpoint. Saving its time would cost a random page write (the cost
    /// of reads at a million entries) and change the order only among rows no sweep is near. Rows
    /// in the older half (the entry stored first and read since, in a full cache) are recorded.
    private func needsAccessSaved(savedAccess: Double, now: Date) throws -> Bool {
        if oldestSavedAccess == nil {
            oldestSavedAccess = try openStatements().oldestAccess.withReset { query -> Double in
                try query.step()
                return query.double(at: 0)
            }
        }
        let oldest = oldestSavedAccess ?? savedAccess
        let midpoint = oldest + (now.timeIntervalSinceReferenceDate - oldest) / 2
        return savedAccess <= midpoint
    }

    // MARK: Statistics, invariants, closing

    /// The counters with the current count and size; cost is bytes.
    func snapshot() -> CacheStatistics {
        try? refreshTotalsIfChangedElsewhere()
        var statistics = counters
        statistics.count = count
        statistics.bytes = totalBytes
        statistics.cost = totalBytes
        if let pinned = try? pinnedTotals() { (statistics.pinnedCount, statistics.pinnedBytes) = pinned }
        return statistics
    }

    /// Checks the in-memory sums against the table, the size limit, and the file's structure.
    ///
    /// Pending access times are not checked against the rows: another process may evict a row this
    /// one read, and saving its time later updates nothing.
    func checkInvariants() throws {
        guard statements != nil else { return }
        try refreshTotalsIfChangedElsewhere()
        let rows = try connection.integers("SELECT COUNT(*) FROM entries", operation: "count entries")
        let bytes = try connection.integers("SELECT COALESCE(SUM(size), 0) FROM entries", operation: "sum sizes")
        let ordered = try connection.integers(
            "SELECT COUNT(*) FROM entries JOIN access_order ON access_order.entry = entries.rowid "
                + "AND access_order.size = entries.size",
            operation: "match the access order"
        )
        precondition(ordered == rows, "SQLite access_order \(ordered) differs from the entries \(rows)")
        let stored = try connection.integers(
            "SELECT entries FROM totals UNION ALL SELECT bytes FROM totals", operation: "read the totals")
        precondition(stored == rows + bytes, "SQLite totals row \(stored) differs from the table's \(rows + bytes)")
        precondition(rows.first == Int64(count), "SQLiteBackend count \(count) differs from the table's \(rows)")
        precondition(bytes.first == Int64(totalBytes), "SQLiteBackend size \(totalBytes) differs from \(bytes)")
        precondition(totalBytes <= configuration.sizeLimit, "SQLiteBackend over its size limit")
        let strayPins = try connection.integers(
            "SELECT COUNT(*) FROM pinned_entries WHERE entry NOT IN (SELECT rowid FROM entries)",
            operation: "match the pinned entries")
        precondition(strayPins == [0], "SQLite pinned_entries holds \(strayPins) rows without an entry")
        let check = try connection.strings("PRAGMA quick_check", operation: "check the file")
        precondition(check == ["ok"], "SQLite quick_check: \(check)")
    }

    /// Saves pending access times, frees the statements and closes the connection (which
    /// checkpoints the WAL into the file). Safe to call twice.
    func close() {
        guard let statements else { return }
        try? flushAccessTimes()
        for statement in statements.all + (pinStatements?.all ?? []) { statement.finalize() }
        pinStatements = nil
        self.statements = nil
        connection.close()
    }
}
