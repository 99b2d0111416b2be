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
    /// inside `entries`) and version 4 files (no pins) are upgraded in place when opened.
    static let version: Int64 = 5

    /// The pages of a database holding no entries: the header page, the five tables and their four
    /// indexes (the pins table is its own index).
    static let emptyPages = 10

    /// The columns of a version's `entries` table, in order, with their declared types.
    ///
    /// `data` comes after the columns that sweeps and sums read, so that reading `size` or the dates
    /// never touches a blob's overflow pages. `partition_name` (version 2) and the RFC 5861 dates
    /// (version 3) follow it because `ALTER TABLE` appends; removing a partition finds its rows
    /// through an index, not the column.
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
        default: return versionTwo + [("stale_while_revalidate_until", "REAL"), ("stale_if_error_until", "REAL")]
        }
    }

    /// The tables, index and triggers of version 4, kept in step with `entries` by the triggers.
    ///
    /// `access_order`: last-access times and sizes, one narrow row per entry (by its rowid). Saving a
    /// read's access time rewrites only this small row: in `entries` it rewrote the row's leaf page,
    /// which a 16 KiB entry fills on its own, so every batch of 256 saved times wrote 4 MiB to the
    /// WAL. `(last_access, size)` orders the LRU sweep. `entries.last_access` stays, holding the time
    /// the entry was stored.
    ///
    /// `totals`: the count and the sum of sizes in one row, so that opening the file, or noticing
    /// another process's write, reads one row instead of summing an index of every entry.
    private static let versionFourTables = """
        CREATE TABLE access_order (
            entry INTEGER PRIMARY KEY NOT NULL,
            last_access REAL NOT NULL,
            size INTEGER NOT NULL
        );
        CREATE INDEX access_order_by_time ON access_order (last_access, size);
        CREATE TABLE totals (
            only INTEGER PRIMARY KEY CHECK (only = 1),
            entries INTEGER NOT NULL,
            bytes INTEGER NOT NULL
        );
        CREATE TRIGGER entries_counted_on_insert AFTER INSERT ON entries BEGIN
            INSERT INTO access_order (entry, last_access, size) VALUES (new.rowid, new.last_access, new.size);
            UPDATE totals SET entries = entries + 1, bytes = bytes + new.size;
        END;
        CREATE TRIGGER entries_counted_on_delete AFTER DELETE ON entries BEGIN
            DELETE FROM access_order WHERE entry = old.rowid;
            UPDATE totals SET entries = entries - 1, bytes = bytes - old.size;
        END;
        """

    /// The pins of version 5: `pins` holds the rules (kind 0 a key, 1 an asset with its derived keys),
    /// `pinned_entries` the rows they cover (by rowid, with their size), which the LRU sweep skips and
    /// the pinned quota sums. A trigger drops a row's pin when the row goes.
    private static let versionFiveTables = """
        CREATE TABLE pins (
            kind INTEGER NOT NULL CHECK (kind IN (0, 1)),
            key BLOB NOT NULL,
            PRIMARY KEY (kind, key)
        ) WITHOUT ROWID;
        CREATE TABLE pinned_entries (
            entry INTEGER PRIMARY KEY NOT NULL,
            size INTEGER NOT NULL
        );
        CREATE TRIGGER entries_unpinned_on_delete AFTER DELETE ON entries BEGIN
            DELETE FROM pinned_entries WHERE entry = old.rowid;
        END;
        """

    /// What each version changed, applied in order from the file's version to the current one. A
    /// new version adds its step here (and to `creation`); an unreleased version's changes go into
    /// its own step.
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
            return versionFourTables + """
                INSERT INTO access_order (entry, last_access, size) SELECT rowid, last_access, size FROM entries;
                INSERT INTO totals (only, entries, bytes) SELECT 1, COUNT(*), COALESCE(SUM(size), 0) FROM entries;
                DROP INDEX entries_by_last_access;
                """
        // Version 5 added pins (no entry is pinned yet).
        case 5:
            return versionFiveTables
        default:
            return ""
        }
    }

    /// Upgrades a file of an older `version` to the current one, one version's changes after another.
    static func upgrade(from version: Int64) -> String {
        let steps = (version + 1...Self.version).map(upgradeStep(to:)).joined()
        return steps + "PRAGMA user_version = \(Self.version);"
    }

    /// Creates the schema; dates are `timeIntervalSinceReferenceDate` (REAL), so they round-trip exactly.
    ///
    /// Keys are the UTF-8 bytes of `CacheKey.rawValue` as a BLOB, so a key holding NUL is kept whole.
    /// The access order and totals live in their own tables (see `versionFourTables`). 16 KiB pages suit media: a
    /// 16 KiB entry spans 2 pages instead of 5, a 1 MiB chunk 64 instead of 256 (CPU time measured
    /// against 4 KiB pages: 16 KiB hits ~25 % cheaper and stores ~20 % dearer; 1 MiB hits ~20 % and
    /// stores ~40 % cheaper).
    static let creation =
        entriesTable + versionFourTables + versionFiveTables
        + "INSERT INTO totals (only, entries, bytes) VALUES (1, 0, 0);"

    /// The entries, their indexes and the header marks.
    private static let entriesTable = """
        CREATE TABLE entries (
            key BLOB PRIMARY KEY NOT NULL,
            size INTEGER NOT NULL CHECK (size >= 0 AND size = length(data)),
            created REAL NOT NULL,
            last_access REAL NOT NULL,
            expires REAL,
            fresh_until REAL,
            etag TEXT,
            last_modified TEXT,
            content_type TEXT,
            data BLOB NOT NULL,
            partition_name TEXT,
            stale_while_revalidate_until REAL,
            stale_if_error_until REAL
        );
        CREATE INDEX entries_by_expiry ON entries (expires) WHERE expires IS NOT NULL;
        CREATE INDEX entries_by_partition ON entries (partition_name) WHERE partition_name IS NOT NULL;
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
    /// - Parameter busyTimeout: How long to wait for another connection's lock, here too where
    ///   SQLite does not wait by itself (see `enableWriteAheadLogging`).
    /// - Throws: `SQLiteError.notADatabase`, `.foreignDatabase`, `.newerSchemaVersion` or `.locked`,
    ///   each before anything is written to the file.
    static func prepare(_ connection: SQLiteConnection, busyTimeout: Duration) throws {
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
                case .older(let version):
                    try connection.execute(upgrade(from: version), operation: "upgrade the cache schema")
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
        /// `access_order` and `totals`, 4: before pins).
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
        let expected = columns(version: version).map { "\($0.name) \($0.type)" }
        let actual = zip(names, types).map { "\($0) \($1.uppercased())" }
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
