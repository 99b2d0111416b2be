import CSQLite
import Foundation
import MediaAssets

/// One open `sqlite3` connection. Not thread-safe: its owner confines it to one serial queue.
final class SQLiteConnection {
    /// The database file's path, for error messages.
    let path: String
    private var handle: OpaquePointer?

    /// Opens `path` read-write, creating it if missing.
    ///
    /// `SQLITE_OPEN_NOMUTEX` (multi-thread mode): the owner serialises every call on its own queue,
    /// so SQLite's per-connection mutex would only add a lock and unlock to each call.
    init(path: String) throws {
        self.path = path
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        var opened: OpaquePointer?
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(opened)
            throw SQLiteError.cannotOpen(path: path, code: status, message: message)
        }
        // SQLite falls back to read-only when it cannot open the file for writing; the first write
        // would then fail as a vague "disk I/O error", so say what it is now.
        guard sqlite3_db_readonly(opened, "main") != 1 else {
            sqlite3_close_v2(opened)
            throw SQLiteError.readOnly(path: path)
        }
        handle = opened
    }

    deinit { close() }

    /// Whether `close()` has run.
    var isClosed: Bool { handle == nil }

    /// The number of rows the last `INSERT`, `UPDATE` or `DELETE` changed.
    var changes: Int { handle.map { Int(sqlite3_changes64($0)) } ?? 0 }

    /// Waits up to `duration` for a lock another connection holds before failing with `SQLITE_BUSY`.
    func setBusyTimeout(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1_000 + Double(attoseconds) / 1e15
        sqlite3_busy_timeout(handle, Int32(min(Double(Int32.max), max(0, milliseconds))))
    }

    /// Runs one or more statements that return no rows the caller needs.
    func execute(_ sql: String, operation: String) throws {
        guard let handle else { throw AssetsError.closed(path: path) }
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error(operation: operation) }
    }

    /// Compiles `sql` once; the statement is reused with `SQLiteStatement.withReset(_:)`.
    func prepare(_ sql: String, operation: String) throws -> SQLiteStatement {
        guard let handle else { throw AssetsError.closed(path: path) }
        var statement: OpaquePointer?
        let flags = UInt32(SQLITE_PREPARE_PERSISTENT)
        guard sqlite3_prepare_v3(handle, sql, -1, flags, &statement, nil) == SQLITE_OK, let statement else {
            throw error(operation: operation)
        }
        return SQLiteStatement(statement, path: path, operation: operation)
    }

    /// Runs a query and returns its first column of every row as integers (`PRAGMA user_version`).
    func integers(_ sql: String, operation: String) throws -> [Int64] {
        let statement = try prepare(sql, operation: operation)
        defer { statement.finalize() }
        return try statement.withReset { query in
            var values: [Int64] = []
            while try query.step() { values.append(query.int64(at: 0)) }
            return values
        }
    }

    /// Runs a query and returns its first column of every row as text.
    func strings(_ sql: String, operation: String) throws -> [String] {
        let statement = try prepare(sql, operation: operation)
        defer { statement.finalize() }
        return try statement.withReset { query in
            var values: [String] = []
            while try query.step() { values.append(query.text(at: 0) ?? "") }
            return values
        }
    }

    /// The connection's last error as a `SQLiteError.statementFailed`.
    func error(operation: String) -> SQLiteError {
        guard let handle else {
            return .statementFailed(path: path, operation: operation, code: SQLITE_MISUSE, message: "closed")
        }
        return .statementFailed(
            path: path, operation: operation,
            code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle))
        )
    }

    /// Closes the connection; the owner finalizes its statements first. Safe to call twice.
    func close() {
        guard let handle else { return }
        // close_v2 defers the close until any statement still alive is finalized, instead of failing.
        sqlite3_close_v2(handle)
        self.handle = nil
    }
}
