import CSQLite
import Foundation
import MediaAssets

/// A prepared statement, compiled once and reused: bind, step, read columns, then reset.
///
/// Parameter and column indexes are SQLite's: parameters count from 1, columns from 0.
final class SQLiteStatement {
    private var handle: OpaquePointer?
    private let path: String
    /// What the statement does, in words, for error messages ("store an entry").
    let operation: String

    init(_ handle: OpaquePointer, path: String, operation: String) {
        self.handle = handle
        self.path = path
        self.operation = operation
    }

    deinit { finalize() }

    /// Runs `body`, then resets the statement and clears its bindings, whether `body` threw or not.
    func withReset<Result>(_ body: (SQLiteStatement) throws -> Result) throws -> Result {
        guard handle != nil else { throw AssetsError.closed(path: path) }
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        return try body(self)
    }

    /// Advances to the next row; returns false when the statement is done.
    @discardableResult
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw error()
        }
    }

    /// Steps through every row, for statements run for their effect.
    func run() throws {
        while try step() {}
    }

    /// Binds `values` to parameters 1, 2, … and steps through every row, then resets.
    func run(binding values: Int64...) throws {
        try withReset { statement in
            for (index, value) in values.enumerated() { try statement.bind(value, at: Int32(index + 1)) }
            try statement.run()
        }
    }

    // MARK: Binding

    /// The index of the parameter named `name` (`:key`), or 0 when the statement has none.
    func parameter(_ name: String) -> Int32 { sqlite3_bind_parameter_index(handle, name) }

    func bind(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    func bind(_ value: Double?, at index: Int32) throws {
        guard let value else { return try check(sqlite3_bind_null(handle, index)) }
        try check(sqlite3_bind_double(handle, index, value))
    }

    /// Binds text with its explicit UTF-8 length, so text holding NUL survives; nil binds NULL.
    func bind(_ value: String?, at index: Int32) throws {
        guard var text = value else { return try check(sqlite3_bind_null(handle, index)) }
        let status = text.withUTF8 { utf8 in
            utf8.withMemoryRebound(to: CChar.self) { characters in
                // A nil base (empty text) would bind NULL: pass a real empty string instead.
                guard let base = characters.baseAddress, !characters.isEmpty else {
                    return sqlite3_bind_text64(handle, index, "", 0, csqlite_transient(), UInt8(SQLITE_UTF8))
                }
                return sqlite3_bind_text64(
                    handle, index, base, UInt64(characters.count), csqlite_transient(), UInt8(SQLITE_UTF8)
                )
            }
        }
        try check(status)
    }

    /// Binds the UTF-8 bytes of `text` as a BLOB (copied), so that keys compare byte for byte.
    func bindBlob(utf8Of text: String, at index: Int32) throws {
        var text = text
        let status = text.withUTF8 { bytes in
            bytes.isEmpty
                ? sqlite3_bind_zeroblob(handle, index, 0)
                : sqlite3_bind_blob64(handle, index, bytes.baseAddress, UInt64(bytes.count), csqlite_transient())
        }
        try check(status)
    }

    /// Binds `bytes` as a BLOB (copied).
    func bindBlob(_ bytes: [UInt8], at index: Int32) throws {
        let status = bytes.withUnsafeBytes { buffer in
            buffer.isEmpty
                ? sqlite3_bind_zeroblob(handle, index, 0)
                : sqlite3_bind_blob64(handle, index, buffer.baseAddress, UInt64(buffer.count), csqlite_transient())
        }
        try check(status)
    }

    /// Binds `bytes` as a BLOB without copying; the caller keeps them alive until the reset.
    func bindBlobNoCopy(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            return try check(sqlite3_bind_zeroblob(handle, index, 0))
        }
        try check(sqlite3_bind_blob64(handle, index, base, UInt64(bytes.count), csqlite_static()))
    }

    // MARK: Columns

    /// The number of columns a row of this statement has.
    var columnCount: Int32 { sqlite3_column_count(handle) }

    func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func int64(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func double(at column: Int32) -> Double { sqlite3_column_double(handle, column) }

    func optionalDouble(at column: Int32) -> Double? { isNull(at: column) ? nil : double(at: column) }

    func text(at column: Int32) -> String? {
        guard !isNull(at: column), let characters = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: characters, count: count), as: UTF8.self)
    }

    /// The column's bytes, copied into a `Data` (SQLite's buffer is only valid until the next step).
    func data(at column: Int32) -> Data {
        withBlob(at: column) { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return Data() }
            return Data(bytes: base, count: bytes.count)
        }
    }

    /// Calls `body` with the column's bytes in SQLite's own buffer, valid only during the call.
    func withBlob<Result>(at column: Int32, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        // The pointer first, then the length (SQLite's documented order).
        let bytes = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: count > 0 ? bytes : nil, count: bytes == nil ? 0 : count))
    }

    // MARK: Lifetime and errors

    /// Frees the statement; later use throws `AssetsError.closed`. Safe to call twice.
    func finalize() {
        sqlite3_finalize(handle)
        handle = nil
    }

    private func check(_ status: Int32) throws {
        guard status == SQLITE_OK else { throw error() }
    }

    private func error() -> SQLiteError {
        guard let handle, let database = sqlite3_db_handle(handle) else {
            return .statementFailed(path: path, operation: operation, code: SQLITE_MISUSE, message: "finalized")
        }
        return .statementFailed(
            path: path, operation: operation,
            code: sqlite3_extended_errcode(database), message: String(cString: sqlite3_errmsg(database))
        )
    }
}
