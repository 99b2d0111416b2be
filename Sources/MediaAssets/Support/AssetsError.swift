import Foundation

/// Errors of the caching core and of fetching through the `AssetsManager`.
public enum AssetsError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// Nothing is registered for this storage type.
    case backendNotRegistered(StorageType)
    /// The cache directory could not be created or written.
    case directoryUnavailable(path: String, reason: String)
    /// Another `DiskCache` (in this or another process) already owns the directory.
    case directoryLocked(path: String)
    /// Writing an entry failed; what was cached before is intact.
    case writeFailed(key: CacheKey, path: String, reason: String)
    /// Reading an entry failed for a reason other than a miss or corruption.
    case readFailed(key: CacheKey, path: String, reason: String)
    /// Removing entries failed.
    case removeFailed(path: String, reason: String)
    /// The cache at this path was closed.
    case closed(path: String)

    public var description: String {
        switch self {
        case .backendNotRegistered(let storageType):
            return "No cache backend is registered for \(storageType); register one with "
                + "AssetsManager.register(_:for: \(storageType)) or list it in the configuration."
        case .directoryUnavailable(let path, let reason):
            return "The cache directory \(path) cannot be used: \(reason). Choose a writable directory."
        case .directoryLocked(let path):
            return "The cache directory \(path) is in use by another DiskCache (a lock is held on "
                + "\(path)/.lock); give each cache its own directory."
        case .writeFailed(let key, let path, let reason):
            return "Storing '\(key.rawValue.prefix(200))' at \(path) failed: \(reason); the previous entry is intact."
        case .readFailed(let key, let path, let reason):
            return "Reading '\(key.rawValue.prefix(200))' from \(path) failed: \(reason)."
        case .removeFailed(let path, let reason):
            return "Removing \(path) failed: \(reason)."
        case .closed(let path):
            return "The cache at \(path) was closed; open a new one to use it again."
        }
    }

    public var errorDescription: String? { description }
}

/// The text of a C `errno` value.
func errnoDescription(_ code: Int32 = errno) -> String {
    String(cString: strerror(code)) + " (errno \(code))"
}
