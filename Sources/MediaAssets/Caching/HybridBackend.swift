import Synchronization

/// A memory backend in front of a byte backend: reads fall through and promote, writes go to both.
///
/// The manager resolves `.hybrid(t)` to `HybridBackend(memory: <.lru(t)>, storage: <.disk>, partition: t)`
/// — the same instances those storage types name, so a hybrid write is visible through `.lru(t)` and
/// `.disk` too. The decoded object of an entry stays in memory; only bytes reach the storage. With a
/// partition, every entry it stores carries it (`CacheMetadata.partition`), and `removeAll()` empties
/// the memory and only that partition's entries of the shared storage.
public final class HybridBackend: TieredCaching {
    /// The fast front, usually a `MemoryCache`.
    public let memory: any CacheBackend
    /// The persistent back, usually a `DiskCache` or a `SQLiteBackend`.
    public let storage: any CacheBackend

    private struct Counters {
        var memoryHits = 0
        var storageHits = 0
        var misses = 0
        var writes = 0
        /// Moves on every store and remove: a storage hit read before a change is not promoted.
        var generation: UInt64 = 0
    }

    private let counters = Mutex(Counters())

    /// Composes `memory` in front of `storage`.
    /// The partition its entries carry on the shared storage, if any.
    public let partition: LRUCacheType?

    /// Composes `memory` in front of `storage`; entries carry `partition` when given.
    public init(memory: any CacheBackend, storage: any CacheBackend, partition: LRUCacheType? = nil) {
        self.memory = memory
        self.storage = storage
        self.partition = partition
    }

    /// `entry` with this composition's partition, and without its decoded object when `bytesOnly`.
    private func stamped(_ entry: CacheEntry, bytesOnly: Bool) -> CacheEntry {
        var stamped = entry
        if bytesOnly { stamped.decoded = nil }
        if let partition, stamped.metadata.partition != partition { stamped.metadata.partition = partition }
        return stamped
    }

    /// Returns the memory entry, or the storage entry after promoting it into memory.
    ///
    /// A storage hit is promoted only if no store or remove ran while it was read, so a slow read
    /// never puts older bytes in front of newer ones.
    public func entry(forKey key: CacheKey) async throws -> CacheEntry? {
        if let entry = try await memory.entry(forKey: key) {
            counters.withLock { $0.memoryHits += 1 }
            return entry
        }
        let generation = counters.withLock { $0.generation }
        guard let entry = try await storage.entry(forKey: key) else {
            counters.withLock { $0.misses += 1 }
            return nil
        }
        let unchanged = counters.withLock { counters -> Bool in
            counters.storageHits += 1
            return counters.generation == generation
        }
        if unchanged { try await memory.store(entry, forKey: key) }
        return entry
    }

    /// The memory front when it keeps decoded objects (a `MemoryCache` does).
    public var decodedObjectTier: (any DecodedObjectCaching)? { memory as? DecodedObjectCaching }

    /// Returns the storage entry without promoting it into memory.
    public func storedEntry(forKey key: CacheKey) async throws -> CacheEntry? {
        try await storage.entry(forKey: key)
    }

    /// Stores the bytes in storage only, leaving memory as it is; a storage read that overlaps the
    /// write is not promoted.
    public func storeBytes(_ entry: CacheEntry, forKey key: CacheKey) async throws {
        let bytesOnly = stamped(entry, bytesOnly: true)
        counters.withLock { $0.generation += 1 }
        try await storage.store(bytesOnly, forKey: key)
        counters.withLock { $0.generation += 1 }
    }

    /// Stores the bytes in storage first, then the entry (with its decoded object) in memory.
    ///
    /// If the storage write fails, memory is left as it was and the error is thrown.
    public func store(_ entry: CacheEntry, forKey key: CacheKey) async throws {
        let entry = stamped(entry, bytesOnly: false)
        let bytesOnly = stamped(entry, bytesOnly: true)
        // Moved before and after the write: a read that overlaps it in any way sees a change.
        counters.withLock { $0.generation += 1 }
        try await storage.store(bytesOnly, forKey: key)
        counters.withLock { $0.generation += 1 }
        try await memory.store(entry, forKey: key)
        counters.withLock { $0.writes += 1 }
    }

    /// Removes the entry from both: storage first, so a concurrent read cannot bring it back to memory.
    public func removeEntry(forKey key: CacheKey) async throws {
        counters.withLock { $0.generation += 1 }
        try await storage.removeEntry(forKey: key)
        counters.withLock { $0.generation += 1 }
        try await memory.removeEntry(forKey: key)
    }

    /// Empties the memory, and the storage: only this composition's partition when it has one (the
    /// storage is shared with other partitions and storage types), everything otherwise.
    public func removeAll() async throws {
        counters.withLock { $0.generation += 1 }
        if let partition {
            try await storage.removeEntries(.partition(partition))
        } else {
            try await storage.removeAll()
        }
        counters.withLock { $0.generation += 1 }
        try await memory.removeAll()
    }

    /// Removes the selected entries from both: storage first, so a concurrent read cannot bring one
    /// back to memory.
    public func removeEntries(_ selection: EntrySelection) async throws {
        counters.withLock { $0.generation += 1 }
        try await storage.removeEntries(selection)
        counters.withLock { $0.generation += 1 }
        try await memory.removeEntries(selection)
    }

    /// Removes expired entries from both.
    public func removeExpired() async throws {
        try await memory.removeExpired()
        try await storage.removeExpired()
    }

    /// This composition's own hits, misses and writes; evictions, count and sizes come from its parts.
    ///
    /// `hits` counts memory and storage hits together; `memoryHits` and `storageHits` split them.
    public func statistics() async -> CacheStatistics {
        let memoryStatistics = await memory.statistics()
        let storageStatistics = await storage.statistics()
        let counters = counters.withLock { $0 }
        var statistics = CacheStatistics()
        statistics.hits = counters.memoryHits + counters.storageHits
        statistics.misses = counters.misses
        statistics.writes = counters.writes
        statistics.evictions = memoryStatistics.evictions + storageStatistics.evictions
        statistics.rejectedTooLarge = storageStatistics.rejectedTooLarge
        statistics.count = storageStatistics.count
        statistics.cost = memoryStatistics.cost
        statistics.bytes = storageStatistics.bytes
        return statistics
    }

    /// The storage's limit (what can be kept at all), else the memory's.
    public var byteLimit: Int? { storage.byteLimit ?? memory.byteLimit }

    /// Reads served by memory.
    public var memoryHits: Int { counters.withLock { $0.memoryHits } }
    /// Reads served by storage (and promoted).
    public var storageHits: Int { counters.withLock { $0.storageHits } }
}
