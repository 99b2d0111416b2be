import CSQLite
import Foundation
import MediaAssets

/// A connection of its own for reads, and the statements a read runs.
///
/// In WAL mode a read sees the last commit while a write is under way, so a read never waits for
/// the backend's writer, its access-time saves, or another process's transaction. The connection
/// is `query_only`. Not thread-safe: `SQLiteReaderPool` lends it to one thread at a time (so it is
/// `@unchecked Sendable`: the pool's lock hands it over, and only its borrower uses it).
final class SQLiteReader: @unchecked Sendable {
    /// What a read of one key found.
    enum Outcome {
        case miss
        /// A live entry, the slot of its row and the time it was stored.
        case hit(CacheEntry, slot: Int64, stored: Double)
        /// A row not to be returned: expired, or its size disagrees with its bytes (only an edited
        /// file). A miss, which the writer then deletes.
        case stale
        /// Not read here: the entry is larger than the caller reads inline, or the file was locked
        /// (another process recovering its WAL after a crash). It is read again off the
        /// cooperative pool, where waiting is allowed.
        case deferred
    }

    let connection: SQLiteConnection
    private let select: SQLiteStatement
    private let oldestAccess: SQLiteStatement
    private let busyTimeout: Duration

    /// Opens a read connection to the database at `path`, which the writer has already set up.
    init(path: String, mappedBytes: Int, busyTimeout: Duration) throws {
        connection = try SQLiteConnection(path: path)
        self.busyTimeout = busyTimeout
        // A read on the caller's thread never sleeps on a lock; `read(waits: true)` sets it for its call.
        connection.setBusyTimeout(.zero)
        try connection.execute(
            "PRAGMA query_only = ON; PRAGMA mmap_size = \(mappedBytes)", operation: "open a read connection")
        select = try connection.prepare(
            """
            SELECT slot, key, size, created, stored, expires, fresh_until, etag, last_modified, content_type,
                partition_name, stale_while_revalidate_until, stale_if_error_until, data
                FROM entries WHERE slot BETWEEN ?1 AND ?2
            """,
            operation: "read an entry"
        )
        oldestAccess = try connection.prepare(
            "SELECT MIN(last_access) FROM access_order", operation: "find the oldest access time")
    }

    deinit { close() }

    /// Reads the entry for `key` from its row among `slots` (one search of the table's B-tree).
    ///
    /// - Parameters:
    ///   - largestSize: An entry larger than this is not read (`.deferred`).
    ///   - waits: Whether to wait for a lock another connection holds (up to the busy timeout), or
    ///     to give up at once with `.deferred` (on the caller's thread).
    func read(_ key: CacheKey, slots: SQLiteKeySlots, now: Date, largestSize: Int, waits: Bool) throws -> Outcome {
        if waits { connection.setBusyTimeout(busyTimeout) }
        defer { if waits { connection.setBusyTimeout(.zero) } }
        do {
            var text = key.rawValue
            return try text.withUTF8 { keyBytes in
                try select.withReset { query in
                    try query.bind(slots.first, at: 1)
                    try query.bind(slots.last, at: 2)
                    // Rows of other keys share the slots only after a collision: step past them.
                    while try query.step() {
                        guard query.withBlob(at: 1, { Self.equal($0, UnsafeRawBufferPointer(keyBytes)) }) else {
                            continue
                        }
                        return Self.outcome(of: query, now: now, largestSize: largestSize)
                    }
                    return .miss
                }
            }
        } catch let error as SQLiteError where !waits && error.isBusy {
            return .deferred
        }
    }

    /// The oldest access time `access_order` holds (0 when it is empty).
    func oldestSavedAccess() throws -> Double {
        try oldestAccess.withReset { query in
            try query.step()
            return query.double(at: 0)
        }
    }

    func close() {
        select.finalize()
        oldestAccess.finalize()
        connection.close()
    }

    /// The entry of the row `query` is on.
    private static func outcome(of query: SQLiteStatement, now: Date, largestSize: Int) -> Outcome {
        let size = query.int64(at: 2)
        let expires = query.optionalDouble(at: 5).map(Date.init(timeIntervalSinceReferenceDate:))
        // Decided before the bytes are copied: an expired or large row costs no copy here.
        if let expires, expires <= now { return .stale }
        guard size <= largestSize else { return .deferred }
        let data = query.data(at: 13)
        // The CHECK constraint makes a mismatch impossible unless the file was edited.
        guard Int64(data.count) == size else { return .stale }
        let date = { (column: Int32) -> Date? in
            query.optionalDouble(at: column).map(Date.init(timeIntervalSinceReferenceDate:))
        }
        let metadata = CacheMetadata(
            created: Date(timeIntervalSinceReferenceDate: query.double(at: 3)),
            lastAccess: now,
            expires: expires,
            freshUntil: date(6),
            etag: query.text(at: 7),
            lastModified: query.text(at: 8),
            contentType: query.text(at: 9),
            staleWhileRevalidateUntil: date(11),
            staleIfErrorUntil: date(12),
            partition: query.text(at: 10).map(LRUCacheType.init(rawValue:))
        )
        return .hit(CacheEntry(data: data, metadata: metadata), slot: query.int64(at: 0), stored: query.double(at: 4))
    }

    private static func equal(_ stored: UnsafeRawBufferPointer, _ key: UnsafeRawBufferPointer) -> Bool {
        guard stored.count == key.count else { return false }
        guard let storedBase = stored.baseAddress, let keyBase = key.baseAddress else { return true }
        return memcmp(storedBase, keyBase, key.count) == 0
    }
}

extension SQLiteError {
    /// Whether another connection held a lock the statement needed (`SQLITE_BUSY`).
    var isBusy: Bool {
        guard case .statementFailed(_, _, let code, _) = self else { return false }
        return code & 0xFF == SQLITE_BUSY
    }
}
