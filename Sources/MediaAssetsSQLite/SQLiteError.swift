import CSQLite
import Foundation
import MediaAssets

/// Failures specific to a SQLite database file, with what SQLite said and where.
///
/// Opening never repairs or replaces a file it does not recognise: each case thrown by
/// `SQLiteBackend.init` leaves the file exactly as it was. Failures of single operations
/// (`store`, `entry(forKey:)`, removes) are reported as `AssetsError.writeFailed`, `.readFailed` or
/// `.removeFailed` whose reason is one of these errors' description.
public enum SQLiteError: Equatable, MediaAssetsError {
    /// SQLite could not open the file (a missing directory, no permission, a directory at the path).
    case cannotOpen(path: String, code: Int32, message: String)
    /// The file is not a SQLite database, or its pages are damaged (a truncated or overwritten file).
    case notADatabase(path: String, code: Int32, message: String)
    /// The file is a SQLite database of another program or with another layout (`detail` says which).
    case foreignDatabase(path: String, detail: String)
    /// The file was written by a newer version of this backend, whose layout this one cannot read.
    case newerSchemaVersion(path: String, version: Int32, supportedVersion: Int32)
    /// Another connection (another `SQLiteBackend` or process) held the file's lock longer than
    /// the busy timeout.
    case locked(path: String, code: Int32, message: String)
    /// The file (or its filesystem) is read-only, so SQLite opened it for reading only.
    case readOnly(path: String)
    /// A statement failed; `operation` names the statement.
    case statementFailed(path: String, operation: String, code: Int32, message: String)

    /// SQLite's (extended) result code, or nil for failures SQLite did not report.
    public var code: Int32? {
        switch self {
        case .cannotOpen(_, let code, _), .notADatabase(_, let code, _), .locked(_, let code, _),
            .statementFailed(_, _, let code, _):
            return code
        case .foreignDatabase, .newerSchemaVersion, .readOnly:
            return nil
        }
    }

    /// What failed, where, and what to do about it.
    public var description: String {
        switch self {
        case .cannotOpen(let path, let code, let message):
            return "SQLite cannot open \(path): \(message) \(Self.describe(code)). "
                + "Check that the directory exists and is writable."
        case .notADatabase(let path, let code, let message):
            return "\(path) is not a usable SQLite database: \(message) \(Self.describe(code)). "
                + "The file was left untouched; move it away or choose another path."
        case .foreignDatabase(let path, let detail):
            return "\(path) is a SQLite database that SQLiteBackend did not create (\(detail)). "
                + "The file was left untouched; choose another path."
        case .newerSchemaVersion(let path, let version, let supportedVersion):
            return "\(path) has cache schema version \(version), newer than version \(supportedVersion) "
                + "that this SQLiteBackend reads. The file was left untouched; use a newer MediaAssets or "
                + "another path."
        case .locked(let path, let code, let message):
            return "\(path) stayed locked by another SQLiteBackend or process longer than the busy timeout: "
                + "\(message) \(Self.describe(code)). Raise Configuration.busyTimeout, or find the process "
                + "holding a long transaction on it."
        case .readOnly(let path):
            return "\(path) is read-only (its permissions or its filesystem), and SQLiteBackend must write it. "
                + "The file was left untouched; make it writable (chmod u+w) or choose another path."
        case .statementFailed(let path, let operation, let code, let message):
            let advice =
                code & 0xFF == SQLITE_FULL
                ? " The filesystem is full: free space on it, or lower the size limit so the cache stays within it."
                : ""
            return "SQLite failed to \(operation) in \(path): \(message) \(Self.describe(code)).\(advice)"
        }
    }

    /// `(SQLite error 19: constraint failed)`, from SQLite's own text for the code.
    private static func describe(_ code: Int32) -> String {
        let text = sqlite3_errstr(code).map { String(cString: $0) } ?? "unknown error"
        return "(SQLite error \(code): \(text))"
    }
}
