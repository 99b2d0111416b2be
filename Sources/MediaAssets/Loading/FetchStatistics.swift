/// Counters of the manager's fetching.
public struct FetchStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Requests sent to the origin (each attempt and each revalidation counts).
    public var originRequests = 0
    /// Asks that joined a fetch already under way instead of starting one.
    public var joins = 0
    /// Attempts made again after a transient failure.
    public var retries = 0
    /// Revalidations the server answered with 304 (bytes kept).
    public var revalidations = 0
    /// Bytes received from the origin.
    public var bytesDownloaded = 0
    /// Bytes returned from a cache without a download.
    public var bytesServedFromCache = 0
    /// Fetches that ended in an error.
    public var failures = 0

    /// Creates zeroed counters.
    public init() {}

    public var description: String {
        "origin requests \(originRequests), joins \(joins), retries \(retries), 304s \(revalidations), "
            + "downloaded \(bytesDownloaded) B, served from cache \(bytesServedFromCache) B, failures \(failures)"
    }
}

/// What the request pool coalesces on: the same key into the same storage.
struct FetchKey: Hashable, Sendable {
    var key: CacheKey
    var storageType: StorageType
}
