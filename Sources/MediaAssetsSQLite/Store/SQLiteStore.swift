import Foundation
import MediaAssets

/// The writer: its connection, its prepared statements and the bookkeeping kept in memory beside
/// them. Reads run on connections of their own (`SQLiteReader`) and leave their access times and
/// counts in the shared `SQLiteReadLog`.
///
/// Not thread-safe: `SQLiteBackend` keeps it in a `Mutex` that only its write queue takes, so every
/// use is serialised and the lock is never contended.
final class SQLiteStore {
    /// The statements compiled at open and reused for every operation.
    struct Statements {
        let insert: SQLiteStatement
        let occupiedSlots: SQLiteStatement
        let updateMetadata: SQLiteStatement
        let updateExpiry: SQLiteStatement
        let updatePartition: SQLiteStatement
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
            // Named parameters: `bind(_:to:)` binds the metadata to whichever of them a statement has.
            insert = try connection.prepare(
                """
                INSERT INTO entries (slot, key, size, created, stored, expires, fresh_until, etag, last_modified,
                    content_type, partition_name, stale_while_revalidate_until, stale_if_error_until, data)
                    VALUES (:slot, :key, :size, :created, :stored, :expires, :fresh_until, :etag, :last_modified,
                    :content_type, :partition_name, :stale_while_revalidate_until, :stale_if_error_until, :data)
                """,
                operation: "store an entry"
            )
            occupiedSlots = try connection.prepare(
                "SELECT slot FROM entries WHERE slot BETWEEN ?1 AND ?2 ORDER BY slot", operation: "find a free slot")
            // A live row only: an expired one is a miss, which an update must leave as it is. The
            // indexed columns go apart, set only when they change: SQLite rewrites the index entries
            // of every indexed column an UPDATE sets, changed or not.
            updateMetadata = try connection.prepare(
                """
                UPDATE entries SET created = :created, fresh_until = :fresh_until, etag = :etag,
                    last_modified = :last_modified, content_type = :content_type,
                    stale_while_revalidate_until = :stale_while_revalidate_until,
                    stale_if_error_until = :stale_if_error_until
                    WHERE key = :key AND (expires IS NULL OR expires > :now)
                """,
                operation: "update an entry's metadata"
            )
            updateExpiry = try connection.prepare(
                "UPDATE entries SET expires = :expires WHERE key = :key AND expires IS NOT :expires",
                operation: "update an entry's expiry"
            )
            updatePartition = try connection.prepare(
                """
                UPDATE entries SET partition_name = :partition_name
                    WHERE key = :key AND partition_name IS NOT :partition_name
                """,
                operation: "update an entry's partition"
            )
            deleteByKey = try connection.prepare(
                "DELETE FROM entries WHERE key = ?1 RETURNING rowid, size", operation: "remove an entry"
            )
            deleteByRowID = try connection.prepare("DELETE FROM entries WHERE rowid = ?1", operation: "evict an entry")
            deleteExpired = try connection.prepare(
                "DELETE FROM entries WHERE expires <= ?1 RETURNING rowid, size", operation: "remove expired entries"
            )
            deleteAll = try connection.prepare("DELETE FROM entries", operation: "remove all entries")
            // Only rows saved in the older half of the span (see `SQLiteBackend.settle`): a newer one
            // would cost a page write and move no sweep.
            updateLastAccess = try connection.prepare(
                "UPDATE access_order SET last_access = ?2 WHERE entry = ?1 AND last_access <= ?3",
                operation: "save last-access times"
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
                insert, occupiedSlots, updateMetadata, updateExpiry, updatePartition, deleteByKey, deleteByRowID,
                deleteExpired, deleteAll,
                updateLastAccess, selectLeastRecent, sums, oldestAccess, dataVersion, pageCount, freelistCount, begin,
                commit, rollback,
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
    /// Writes, evictions and rejections since open (the reads count theirs in `readLog`).
    var counters = CacheStatistics()
    /// What reads left: access times to save, hit and miss counts.
    let readLog: SQLiteReadLog
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

    /// Opens the database, checks, upgrades or creates the schema, and loads the count and total size.
    init(configuration: SQLiteBackend.Configuration, path: String, readLog: SQLiteReadLog) throws {
        self.configuration = configuration
        self.path = path
        self.readLog = readLog
        connection = try SQLiteConnection(path: path)
        connection.setBusyTimeout(configuration.busyTimeout)
        try SQLiteSchema.prepare(connection, busyTimeout: configuration.busyTimeout, keyHash: configuration.keyHash)
        let pageSize = try connection.integers("PRAGMA page_size", operation: "read the page size").first ?? 4_096
        budget = SQLiteDiskBudget(
            sizeLimit: configuration.sizeLimit, lowWaterFraction: configuration.lowWaterFraction,
            pageSize: Int(pageSize), filesystemRoom: Self.filesystemRoom(path: path)
        )
        // Reads of pages in the database file then cost no read() call and no copy into SQLite's
        // page cache (which, at 2 MiB, holds only 125 of our 16 KiB pages). SQLite only reads
        // through the map and writes with write(), so a full filesystem still fails a write cleanly,
        // and it remaps when another process grows or shrinks the file.
        try connection.execute("PRAGMA mmap_size = \(mappedBytes)", operation: "map the file into memory")
        // A statement inside a transaction keeps a journal of the pages it changes, to undo itself
        // alone; past 64 KiB (a 16 KiB entry's delete) SQLite spills it to a temporary file, which
        // cost every store a file created, written and deleted. In memory it holds at most the pages
        // of the largest entry, for the length of one statement. (Set after the schema is prepared:
        // an upgrade's temporary table of moved rows stays in a file.)
        try connection.execute("PRAGMA temp_store = MEMORY", operation: "keep statement journals in memory")
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

    /// How much of the file each connection maps.
    var mappedBytes: Int { min(budget.fileBytes, Self.largestMapping) }

    /// Reads the count and size again if another connection has committed since they were last
    /// read; writes call it inside their transaction, so their eviction sees every process's rows.
    func refreshTotalsIfChangedElsewhere() throws {
        let statements = try openStatements()
        let version = try statements.dataVersion.withReset { query -> Int64 in
            try query.step()
            return query.int64(at: 0)
        }
        guard version != seenDataVersion else { return }
        readLog.forgetOldestSavedAccess()
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

    // MARK: Statistics, invariants, closing

    /// The counters with the current count and size; cost is bytes.
    func snapshot() -> CacheStatistics {
        try? refreshTotalsIfChangedElsewhere()
        var statistics = counters
        (statistics.hits, statistics.misses) = readLog.counts
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
        try checkSlots()
        let check = try connection.strings("PRAGMA quick_check", operation: "check the file")
        precondition(check == ["ok"], "SQLite quick_check: \(check)")
    }

    /// Checks that every row's slot is one of its key's slots (the unique index keeps keys apart).
    private func checkSlots() throws {
        let query = try connection.prepare("SELECT slot, key FROM entries", operation: "check the slots")
        defer { query.finalize() }
        try query.withReset { query in
            while try query.step() {
                let slot = query.int64(at: 0)
                let slots = query.withBlob(at: 1) { SQLiteKeySlots(keyBytes: $0, hash: configuration.keyHash) }
                precondition(slots.contains(slot), "SQLite row at slot \(slot) is outside its key's \(slots)")
            }
        }
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
