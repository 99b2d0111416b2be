import CSQLite
import Foundation

/// The database layout, and the checks that decide at open whether a file is ours to use.
///
/// A file is ours when its header carries our `PRAGMA application_id` and a `user_version` we know,
/// and its `entries` table has exactly our columns. A new file (no id, no version, no tables) gets
/// the schema. Anything else throws and the file is left byte for byte as it was: every check
/// before that decision only reads.
enum SQLiteSchema {
    /// "MASQ": marks the file as a MediaAssets SQLite cache (`PRAGMA application_id`).
    static let applicationID: Int64 = 0x4D41_5351
    /// The layout version this code reads and writes (`PRAGMA user_version`). Version 1 files (no
    /// `partition_name` column), version 2 files (no stale dates), version 3 files (access times
    /// inside `entries`), version 4 files (no pins) and version 5 files (rowids in insertion order)
    /// are upgraded in place when opened.
    static let version: Int64 = 6

    /// The pages of a database holding no entries: the header page, the five tables and their four
    /// indexes (the pins table is its own index).
    static let emptyPages = 10

    /// The columns of a version's `entries` table, in order, with their declared types.
    private static func columns(version: Int64) -> [(name: String, type: String)] {
        let versionOne: [(name: String, type: String)] = [
            ("key", "BLOB"), ("size", "INTEGER"), ("created", "REAL"), ("last_access", "REAL"),
            ("expires", "REAL"), ("fresh_until", "REAL"), ("etag", "TEXT"), ("last_modified", "TEXT"),
            ("content_type", "TEXT"), ("data", "BLOB"),
        ]
        let versionTwo = versionOne + [("partition_name", "TEXT")]
        switch version {
        case 1: return versionOne
        case 2: return versionTwo
        // Versions 4 (`access_order`) and 5 (pins) added tables and left `entries` as it was.
        case 3, 4, 5:
            return versionTwo + [("stale_while_revalidate_until", "REAL"), ("stale_if_error_until", "REAL")]
        default:
            return [
                ("slot", "INTEGER"), ("key", "BLOB"), ("size", "INTEGER"), ("created", ""), ("stored", ""),
                ("expires", ""), ("fresh_until", ""), ("etag", "TEXT"), ("last_modified", "TEXT"),
                ("content_type", "TEXT"), ("partition_name", "TEXT"), ("stale_while_revalidate_until", ""),
                ("stale_if_error_until", ""), ("data", "BLOB"),
            ]
        }
    }

    /// The entries of version 6, one row per key.
    ///
    /// - `slot` is the rowid: one of the key's `SQLiteKeySlots`, so a hit is one search of this
    ///   table's B-tree (a key index, then the table, before). `entries_by_key` serves key ranges
    ///   (prefix and asset removals, the stored keys in order) and stores' lookups by key.
    /// - `data` is the last column, so reading the metadata, the size or the dates never touches a
    ///   blob's overflow pages, and a change of metadata that keeps the row's size rewrites no page
    ///   of the blob.
    /// - `stored` is the time the entry was stored; the access times live in `access_order`.
    /// - The dates are `timeIntervalSinceReferenceDate` doubles, so they round-trip exactly, in
    ///   columns declared without a type: a `REAL` column stores a whole number of seconds as a
    ///   shorter integer, so a new date would change the row's size, and SQLite writes a row whose
    ///   size changed again whole, blob included. At 8 bytes each, the new dates of a 304 keep the
    ///   size, and SQLite rewrites the row's first page only.
    ///
    /// Keys are the UTF-8 bytes of `CacheKey.rawValue` as a BLOB, so a key holding NUL is kept whole.
    static func entriesTable(named name: String) -> String {
        """
        CREATE TABLE \(name) (
            slot INTEGER PRIMARY KEY NOT NULL,
            key BLOB NOT NULL,
            size INTEGER NOT NULL CHECK (size >= 0 AND size = length(data)),
            created NOT NULL,
            stored NOT NULL,
            expires,
            fresh_until,
            etag TEXT,
            last_modified TEXT,
            content_type TEXT,
            partition_name TEXT,
            stale_while_revalidate_until,
            stale_if_error_until,
            data BLOB NOT NULL
        );
        """
    }

    /// The indexes of version 6's `entries` and the triggers that keep `access_order`, `totals` and
    /// `pinned_entries` in step with it.
    static let entriesIndexesAndTriggers = """
        CREATE UNIQUE INDEX entries_by_key ON entries (key);
        CREATE INDEX entries_by_expiry ON entries (expires) WHERE expires IS NOT NULL;
        CREATE INDEX entries_by_partition ON entries (partition_name) WHERE partition_name IS NOT NULL;
        CREATE TRIGGER entries_counted_on_insert AFTER INSERT ON entries BEGIN
            INSERT INTO access_order (entry, last_access, size) VALUES (new.slot, new.stored, new.size);
            UPDATE totals SET entries = entries + 1, bytes = bytes + new.size;
        END;
        CREATE TRIGGER entries_counted_on_delete AFTER DELETE ON entries BEGIN
            DELETE FROM access_order WHERE entry = old.slot;
            DELETE FROM pinned_entries WHERE entry = old.slot;
            UPDATE totals SET entries = entries - 1, bytes = bytes - old.size;
        END;
        """

    /// `access_order` (version 4): last-access times and sizes, one narrow row per entry (by its
    /// rowid). Saving a read's access time rewrites only this small row: in `entries` it rewrote the
    /// row's leaf page, which a 16 KiB entry fills on its own, so every batch of 256 saved times wrote
    /// 4 MiB to the WAL. `(last_access, size)` orders the LRU sweep.
    static func accessOrderTable(named name: String) -> String {
        """
        CREATE TABLE \(name) (
            entry INTEGER PRIMARY KEY NOT NULL,
            last_access REAL NOT NULL,
            size INTEGER NOT NULL
        );
        """
    }

    /// `totals` (version 4): the count and the sum of sizes in one row, so that opening the file, or
    /// noticing another process's write, reads one row instead of summing an index of every entry.
    private static let accessOrderAndTotals =
        accessOrderTable(named: "access_order") + """
            CREATE INDEX access_order_by_time ON access_order (last_access, size);
            CREATE TABLE totals (
                only INTEGER PRIMARY KEY CHECK (only = 1),
                entries INTEGER NOT NULL,
                bytes INTEGER NOT NULL
            );
            """

    /// The pins of version 5: `pins` holds the rules (kind 0 a key, 1 an asset with its derived keys),
    /// `pinned_entries` the rows they cover (by rowid, with their size), which the LRU sweep skips and
    /// the pinned quota sums.
    static func pinnedEntriesTable(named name: String) -> String {
        """
        CREATE TABLE \(name) (
            entry INTEGER PRIMARY KEY NOT NULL,
            size INTEGER NOT NULL
        );
        """
    }

    private static let pinTables =
        """
        CREATE TABLE pins (
            kind INTEGER NOT NULL CHECK (kind IN (0, 1)),
            key BLOB NOT NULL,
            PRIMARY KEY (kind, key)
        ) WITHOUT ROWID;
        """ + pinnedEntriesTable(named: "pinned_entries")

    /// What versions 2 to 5 changed, applied in order from the file's version (version 6 moves every
    /// row: see `moveRowsToKeySlots`). These steps stay as they shipped: an older file is brought
    /// to version 5 by them before it moves.
    static func upgradeStep(to version: Int64) -> String {
        switch version {
        // Version 2 added the partition column and its index.
        case 2:
            return """
                ALTER TABLE entries ADD COLUMN partition_name TEXT;
                CREATE INDEX entries_by_partition ON entries (partition_name) WHERE partition_name IS NOT NULL;
                """
        // Version 3 added the RFC 5861 dates.
        case 3:
            return """
                ALTER TABLE entries ADD COLUMN stale_while_revalidate_until REAL;
                ALTER TABLE entries ADD COLUMN stale_if_error_until REAL;
                """
        // Version 4 moved the access times to their own table and keeps the totals (one pass over
        // the rows, once).
        case 4:
            return accessOrderAndTotals + """
                CREATE TRIGGER entries_counted_on_insert AFTER INSERT ON entries BEGIN
                    INSERT INTO access_order (entry, last_access, size) VALUES (new.rowid, new.last_access, new.size);
                    UPDATE totals SET entries = entries + 1, bytes = bytes + new.size;
                END;
                CREATE TRIGGER entries_counted_on_delete AFTER DELETE ON entries BEGIN
                    DELETE FROM access_order WHERE entry = old.rowid;
                    UPDATE totals SET entries = entries - 1, bytes = bytes - old.size;
                END;
                INSERT INTO access_order (entry, last_access, size) SELECT rowid, last_access, size FROM entries;
                INSERT INTO totals (only, entries, bytes) SELECT 1, COUNT(*), COALESCE(SUM(size), 0) FROM entries;
                DROP INDEX entries_by_last_access;
                """
        // Version 5 added pins (no entry is pinned yet).
        case 5:
            return pinTables + """
                CREATE TRIGGER entries_unpinned_on_delete AFTER DELETE ON entries BEGIN
                    DELETE FROM pinned_entries WHERE entry = old.rowid;
                END;
                """
        default:
            return ""
        }
    }

    /// Upgrades a file of an older `version` to the current one, one version's changes after
    /// another, inside the caller's transaction.
    static func upgrade(_ connection: SQLiteConnection, from version: Int64, keyHash: SQLiteKeyHash) throws {
        if version < 5 {
            let steps = (version + 1...5).map(upgradeStep(to:)).joined()
            try connection.execute(steps, operation: "upgrade the cache schema")
        }
        try moveRowsToKeySlots(connection, keyHash: keyHash)
        try connection.execute("PRAGMA user_version = \(Self.version)", operation: "upgrade the cache schema")
    }

    /// Creates the schema. 16 KiB pages suit media: a 16 KiB entry spans 2 pages instead of 5, a
    /// 1 MiB chunk 64 instead of 256 (CPU time measured against 4 KiB pages: 16 KiB hits ~25 %
    /// cheaper and stores ~20 % dearer; 1 MiB hits ~20 % and stores ~40 % cheaper).
    static let creation =
        entriesTable(named: "entries") + accessOrderAndTotals + pinTables + entriesIndexesAndTriggers + """
            INSERT INTO totals (only, entries, bytes) VALUES (1, 0, 0);
            PRAGMA application_id = \(applicationID);
            PRAGMA user_version = \(version);
            """

    /// Checks that the file at `connection` is ours (creating the schema in a new file, upgrading
    /// an older one) and sets the connection up: WAL, `synchronous = NORMAL`.
    ///
    /// Several processes may open one file at once: nothing is locked beyond a transaction, and a
    /// new or older file is created or upgraded under the write lock after deciding again, so two
    /// processes opening a new file at the same moment create its schema once.
    ///
    /// - Parameters:
    ///   - busyTimeout: How long to wait for another connection's lock, here too where SQLite does
    ///     not wait by itself (see `enableWriteAheadLogging`).
    ///   - keyHash: How keys are placed, for an upgrade to version 6.
    /// - Throws: `SQLiteError.notADatabase`, `.foreignDatabase`, `.newerSchemaVersion` or `.locked`,
    ///   each before anything is written to the file.
    static func prepare(_ connection: SQLiteConnection, busyTimeout: Duration, keyHash: SQLiteKeyHash) throws {
        // Only reads until the file is known to be ours (or empty).
        // One read transaction, so the header and the schema are read from one snapshot: another process
        // creating the schema meanwhile is seen before or after its commit, never half way.
        let found = try classifyingOpenErrors(connection) {
            try connection.execute("BEGIN", operation: "read the header")
            do {
                let found = try inspect(connection)
                try connection.execute("COMMIT", operation: "read the header")
                return found
            } catch {
                try? connection.execute("ROLLBACK", operation: "read the header")
                throw error
            }
        }
        if found == .empty {
            // Takes effect only before the first table; 16 KiB pages suit media (see `creation`).
            try connection.execute("PRAGMA page_size = 16384", operation: "set the page size")
        }
        try classifyingOpenErrors(connection) {
            try enableWriteAheadLogging(connection, waitingUpTo: busyTimeout)
        }
        if found != .ours {
            try classifyingOpenErrors(connection) {
                try connection.execute("BEGIN IMMEDIATE", operation: "lock the file to set it up")
            }
            do {
                // Another process may have set the file up meanwhile: decide again under the lock.
                switch try inspect(connection) {
                case .empty: try connection.execute(creation, operation: "create the cache schema")
                case .older(let version): try upgrade(connection, from: version, keyHash: keyHash)
                case .ours: break
                }
                try connection.execute("COMMIT", operation: "commit the cache schema")
            } catch {
                try? connection.execute("ROLLBACK", operation: "roll back the schema")
                throw error
            }
        }
        // WAL with NORMAL syncs at checkpoints, not at every commit: a crash keeps the file
        // consistent and may lose the last writes, which a cache can refetch.
        try connection.execute("PRAGMA synchronous = NORMAL", operation: "set the sync mode")
        // The store checkpoints and truncates the WAL itself (see SQLiteDiskBudget); this bounds it
        // when a checkpoint runs another way.
        try connection.execute("PRAGMA journal_size_limit = 4194304", operation: "limit the WAL size")
    }

    /// Switches the file to WAL (a no-op once it is: the mode is stored in the file).
    ///
    /// The switch rewrites the header from inside a read transaction. While another connection
    /// reads, SQLite cannot wait for it there without risking a deadlock, so it fails with
    /// `SQLITE_BUSY` at once instead of calling the busy handler. That happens only while a new
    /// file is opened by several connections at the same moment (processes starting together), and
    /// the reader is done in microseconds, so this waits here as the busy handler would, up to
    /// `timeout`, with `sqlite3_sleep` pauses that double from 1 to 32 ms.
    private static func enableWriteAheadLogging(
        _ connection: SQLiteConnection, waitingUpTo timeout: Duration
    ) throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var pauseMilliseconds: Int32 = 1
        while true {
            do {
                return try connection.execute("PRAGMA journal_mode = WAL", operation: "enable write-ahead logging")
            } catch SQLiteError.statementFailed(_, _, let code, _)
                where code & 0xFF == SQLITE_BUSY && clock.now < deadline
            {
                sqlite3_sleep(pauseMilliseconds)
                pauseMilliseconds = min(pauseMilliseconds * 2, 32)
            }
        }
    }

    private enum Contents: Equatable {
        case empty
        case ours
        /// Ours, in an older layout (1: before partitions, 2: before the stale dates, 3: before
        /// `access_order` and `totals`, 4: before pins, 5: before key slots).
        case older(version: Int64)
    }

    /// Reads the header and the schema, and decides; never writes.
    private static func inspect(_ connection: SQLiteConnection) throws -> Contents {
        let path = connection.path
        let application = try connection.integers("PRAGMA application_id", operation: "read the header").first ?? 0
        let version = try connection.integers("PRAGMA user_version", operation: "read the header").first ?? 0
        let objects = try connection.strings(
            "SELECT name FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
            operation: "read the schema"
        )
        if application == 0, version == 0, objects.isEmpty { return .empty }
        guard application == applicationID else {
            let tables = objects.isEmpty ? "no tables" : "objects " + objects.prefix(8).joined(separator: ", ")
            return try foreign(path, "application id \(application), user version \(version), \(tables)")
        }
        guard version <= Self.version else {
            throw SQLiteError.newerSchemaVersion(
                path: path, version: Int32(clamping: version), supportedVersion: Int32(clamping: Self.version)
            )
        }
        guard version >= 1 else {
            return try foreign(path, "schema version \(version) is unknown")
        }
        let operation = "read the schema"
        let names = try connection.strings("SELECT name FROM pragma_table_info('entries')", operation: operation)
        let types = try connection.strings("SELECT type FROM pragma_table_info('entries')", operation: operation)
        let described = { (name: String, type: String) in type.isEmpty ? name : "\(name) \(type.uppercased())" }
        let expected = columns(version: version).map(described)
        let actual = zip(names, types).map(described)
        guard actual == expected else {
            let described = actual.isEmpty ? "no entries table" : "entries(\(actual.joined(separator: ", ")))"
            return try foreign(path, "\(described), expected entries(\(expected.joined(separator: ", ")))")
        }
        return version == Self.version ? .ours : .older(version: version)
    }

    private static func foreign(_ path: String, _ detail: String) throws -> Contents {
        throw SQLiteError.foreignDatabase(path: path, detail: detail)
    }

    /// Turns failures of the reads at open into what they mean there: not a database, or locked.
    static func classifyingOpenErrors<T>(_ connection: SQLiteConnection, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch SQLiteError.statementFailed(let path, _, let code, let message) {
            switch code & 0xFF {
            case SQLITE_NOTADB, SQLITE_CORRUPT:
                throw SQLiteError.notADatabase(path: path, code: code, message: message)
            case SQLITE_BUSY, SQLITE_LOCKED:
                throw SQLiteError.locked(path: path, code: code, message: message)
            default:
                throw SQLiteError.cannotOpen(path: path, code: code, message: message)
            }
        }
    }
}
