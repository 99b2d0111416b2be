/// A snapshot of one backend's counters and current contents.
public struct CacheStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Reads that found a live entry.
    public var hits = 0
    /// Reads that found nothing (or an expired or corrupt entry).
    public var misses = 0
    /// Entries stored.
    public var writes = 0
    /// Entries removed by the backend to stay within its limits.
    public var evictions = 0
    /// Entries not stored because they alone exceed the backend's limits.
    public var rejectedTooLarge = 0
    /// Entries held now.
    public var count = 0
    /// The cost held now: memory backends count bytes plus decoded objects; byte backends count bytes.
    public var cost = 0
    /// The bytes of the entries held now (for disk, file sizes including headers).
    public var bytes = 0
    /// Pinned entries held now (counted in `count` too).
    public var pinnedCount = 0
    /// The bytes of the pinned entries held now, as `bytes` counts them; what the pinned quota limits.
    public var pinnedBytes = 0

    /// Creates an empty snapshot.
    public init() {}

    /// The fraction of reads that hit, or 0 with no reads.
    public var hitRate: Double {
        let reads = hits + misses
        return reads == 0 ? 0 : Double(hits) / Double(reads)
    }

    public var description: String {
        "hits \(hits), misses \(misses), writes \(writes), evictions \(evictions), "
            + "rejected \(rejectedTooLarge), count \(count), cost \(cost), bytes \(bytes), "
            + "pinned \(pinnedCount) (\(pinnedBytes) bytes)"
    }
}
