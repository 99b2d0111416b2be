import Foundation

/// An error the package throws: each describes what went wrong and what to do in one sentence, its
/// `description`, which is also its `localizedDescription`.
///
/// Every error type of the package's modules conforms, so `catch let error as any MediaAssetsError`
/// tells the package's failures from a caller's own.
public protocol MediaAssetsError: Error, LocalizedError, CustomStringConvertible, Sendable {}

extension MediaAssetsError {
    /// The same text as `description`.
    public var errorDescription: String? { description }
}

/// Errors of the caching core and of fetching through the `AssetsManager`.
public enum AssetsError: Equatable, MediaAssetsError {
    /// Nothing is registered for this storage type; `registered` lists what is (a `.hybrid(t)` is composed
    /// whenever `.lru(t)` and `.disk` are both there), so a misspelt `.custom` name shows beside the right one.
    case backendNotRegistered(StorageType, registered: [StorageType])
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
    /// The server answered with a status that is not a success (after any retries).
    case httpStatus(code: Int, url: URL)
    /// The response is larger than the configured maximum; nothing was stored.
    case responseTooLarge(url: URL, limit: Int)
    /// The body's length differs from its `Content-Length`; nothing was stored.
    case lengthMismatch(url: URL, expected: Int, received: Int)
    /// The request allowed only the cache, and the cache has no entry.
    case notCached(key: CacheKey)
    /// The request failed in transport (after any retries).
    case networkFailure(url: URL, code: Int, reason: String)
    /// The manager's `FetchPolicy` refused a connection to `url` (the requested URL or a redirect's) before it
    /// was made; `refusal` names the rule, and the address for an address rule. Nothing was stored.
    case fetchRefused(url: URL, refusal: FetchRefusal)
    /// A pipeline's decoder rejected the bytes of `key`; nothing was stored.
    case undecodable(key: CacheKey, url: URL, decoder: String, reason: String)
    /// The backend does not implement an optional operation, such as `removeEntries(_:)`.
    case unsupported(operation: String, backend: String)
    /// Storing or pinning `key` would take the pinned entries past the backend's pinned quota;
    /// nothing changed. `bytes` is what `key` would add, `pinnedBytes` what is pinned already.
    case pinnedQuotaExceeded(key: CacheKey, bytes: Int, pinnedBytes: Int, quota: Int)

    public var description: String {
        switch self {
        case .backendNotRegistered(let storageType, let registered):
            let list = registered.isEmpty ? "nothing" : registered.map(\.description).joined(separator: ", ")
            return "No cache backend is registered for \(storageType) (registered: \(list)); register one with "
                + "AssetsManager.register(_:for: \(storageType)) or list it in the configuration."
        case .directoryUnavailable(let path, let reason):
            return "The cache directory \(path) cannot be used: \(Self.clause(reason)). Choose a writable directory."
        case .directoryLocked(let path):
            return "The cache directory \(path) is in use by another DiskCache (a lock is held on "
                + "\(path)/.lock); a DiskCache directory belongs to one process at a time. Give each cache its "
                + "own directory, or share one cache between processes with SQLiteBackend (one database file) "
                + "or a Redis backend."
        case .writeFailed(let key, let path, let reason):
            return "Storing '\(key.rawValue.prefix(200))' at \(path) failed: \(reason); the previous entry is intact."
        case .readFailed(let key, let path, let reason):
            return "Reading '\(key.rawValue.prefix(200))' from \(path) failed: \(reason)."
        case .removeFailed(let path, let reason):
            return "Removing \(path) failed: \(reason)."
        case .closed(let path):
            return "The cache at \(path) was closed; open a new one to use it again."
        case .httpStatus(let code, let url):
            return "The server answered \(code) for \(url.absoluteString)."
        case .responseTooLarge(let url, let limit):
            return "The response for \(url.absoluteString) is larger than the limit of \(limit) bytes; "
                + "raise AssetsManager.Configuration.maxResponseSize to accept it."
        case .lengthMismatch(let url, let expected, let received):
            return "The server announced \(expected) bytes for \(url.absoluteString) but sent \(received); "
                + "nothing was cached."
        case .notCached(let key):
            return "'\(key.rawValue.prefix(200))' is not cached and the request allowed only the cache."
        case .networkFailure(let url, let code, let reason):
            return "Fetching \(url.absoluteString) failed: \(reason) (URLError \(code))."
        case .fetchRefused(let url, let refusal):
            return "The fetch policy refused \(url.absoluteString): \(refusal); nothing was stored."
        case let .undecodable(key, url, decoder, reason):
            return "The bytes of \(url.absoluteString) (key '\(key.rawValue.prefix(200))') do not decode with "
                + "\(decoder): \(Self.clause(reason)); nothing was stored."
        case .unsupported(let operation, let backend):
            return "\(backend) does not support \(operation); implement it in the backend, or remove "
                + "the entries one key at a time with removeEntry(forKey:)."
        case let .pinnedQuotaExceeded(key, bytes, pinnedBytes, quota):
            return "Pinning '\(key.rawValue.prefix(200))' (\(bytes) bytes) would take the pinned entries from "
                + "\(pinnedBytes) past the pinned quota of \(quota) bytes; nothing changed. Unpin something, "
                + "or raise the backend's pinnedQuota."
        }
    }

    /// A system message without its closing full stop, to sit inside a sentence.
    private static func clause(_ reason: String) -> String {
        reason.hasSuffix(".") ? String(reason.dropLast()) : reason
    }
}

/// The text of a C `errno` value.
func errnoDescription(_ code: Int32 = errno) -> String {
    String(cString: strerror(code)) + " (errno \(code))"
}
