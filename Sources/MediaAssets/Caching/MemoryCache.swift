import Foundation
import Synchronization

/// An in-memory LRU cache with cost and count limits: one partition of the manager's memory.
///
/// Lookups and stores are synchronous and O(1) under a `Mutex`; nothing is called while the lock
/// is held. An entry's cost is `CacheEntry.memoryCost` (bytes plus the decoded object), so a
/// partition limit means bytes. An entry costlier than the limit is not stored. Expired entries
/// are misses and are dropped when found. Memory entries keep the `lastAccess` they were stored
/// with: the LRU order is their record of use.
public final class MemoryCache: DecodedObjectCaching {
    /// The limits of one partition.
    public struct Limits: Sendable, Hashable {
        /// The most total cost (bytes plus decoded objects) the partition holds.
        public var costLimit: Int
        /// The most entries the partition holds.
        public var countLimit: Int

        /// Creates limits; negative values count as 0, and a limit of 0 stores nothing.
        public init(costLimit: Int, countLimit: Int = .max) {
            self.costLimit = max(0, costLimit)
            self.countLimit = max(0, countLimit)
        }
    }

    private struct State {
        var entries = LRUList<CacheKey, CacheEntry>()
        var statistics = CacheStatistics()
        var dataBytes = 0

        mutating func _set(_ entry: CacheEntry, forKey key: CacheKey, cost: Int) -> CacheEntry? {
            let replaced = entries.setValue(entry, forKey: key, cost: cost)
            dataBytes += entry.size - (replaced?.size ?? 0)
            return replaced
        }

        mutating func _remove(_ key: CacheKey) -> CacheEntry? {
            guard let removed = entries.removeValue(forKey: key)?.value else { return nil }
            dataBytes -= removed.size
            return removed
        }

        mutating func _evictOldest() -> CacheEntry? {
            guard let oldest = entries.removeLeastRecent()?.value else { return nil }
            dataBytes -= oldest.size
            statistics.evictions += 1
            return oldest
        }

        mutating func _removeAll() -> LRUList<CacheKey, CacheEntry> {
            var removed = LRUList<CacheKey, CacheEntry>()
            swap(&removed, &entries)
            dataBytes = 0
            return removed
        }
    }

    /// The partition's limits.
    public let limits: Limits
    private let now: @Sendable () -> Date
    private let state = Mutex(State())

    /// Creates an empty cache.
    ///
    /// - Parameters:
    ///   - limits: the cost and count limits.
    ///   - now: the clock used for expiry; tests pass their own.
    public init(limits: Limits, now: @escaping @Sendable () -> Date = Date.init) {
        self.limits = limits
        self.now = now
    }

    /// Returns the live entry for `key`, marking it most recently used.
    ///
    /// - Complexity: O(1)
    public func entry(forKey key: CacheKey) -> CacheEntry? {
        // The clock is read outside the lock, and only for entries that can expire.
        let found = state.withLock { state -> CacheEntry? in
            guard let entry = state.entries.value(forKey: key) else {
                state.statistics.misses += 1
                return nil
            }
            if entry.expires == nil { state.statistics.hits += 1 }
            return entry
        }
        guard let found else { return nil }
        guard let expires = found.expires else { return found }
        let isExpired = expires <= now()
        let dropped = state.withLock { state -> CacheEntry? in
            guard isExpired else {
                state.statistics.hits += 1
                return nil
            }
            state.statistics.misses += 1
            // Drop it only if it is still the expired one: a concurrent store may have replaced it.
            guard let current = state.entries.peekValue(forKey: key), current.isSameStorage(as: found) else {
                return nil
            }
            return state._remove(key)
        }
        withExtendedLifetime(dropped) {}
        return isExpired ? nil : found
    }

    /// Returns the live entry for `key` without waiting; the same as `entry(forKey:)`.
    ///
    /// - Complexity: O(1)
    public func cachedEntry(forKey key: CacheKey) -> CacheEntry? { entry(forKey: key) }

    /// Stores `entry` at once; the same as `store(_:forKey:)`.
    ///
    /// - Complexity: O(1) amortized
    public func insert(_ entry: CacheEntry, forKey key: CacheKey) { store(entry, forKey: key) }

    /// Stores `entry`, evicting least recently used entries to stay within the limits.
    ///
    /// An entry costlier than `limits.costLimit` is not stored (and any older entry for the key is
    /// removed, so a read never returns stale data); it is counted in `rejectedTooLarge`.
    ///
    /// - Complexity: O(1) amortized, plus O(1) per eviction.
    public func store(_ entry: CacheEntry, forKey key: CacheKey) {
        let cost = entry.memoryCost
        let limits = self.limits
        // Replaced and evicted entries are released after the lock is dropped: their deinit
        // may run user code.
        let released = state.withLock { state -> Released in
            guard cost <= limits.costLimit, limits.countLimit > 0 else {
                state.statistics.rejectedTooLarge += 1
                return Released(replaced: state._remove(key))
            }
            state.statistics.writes += 1
            var released = Released(replaced: state._set(entry, forKey: key, cost: cost))
            while state.entries.totalCost > limits.costLimit || state.entries.count > limits.countLimit,
                let oldest = state._evictOldest()
            {
                released.add(evicted: oldest)
            }
            return released
        }
        withExtendedLifetime(released) {}
    }

    /// What a store takes out of the cache, to release once the lock is dropped.
    private struct Released {
        var replaced: CacheEntry?
        /// The usual single eviction, kept out of `moreEvicted` so that it allocates nothing.
        var firstEvicted: CacheEntry?
        var moreEvicted: [CacheEntry] = []

        mutating func add(evicted: CacheEntry) {
            if firstEvicted == nil { firstEvicted = evicted } else { moreEvicted.append(evicted) }
        }
    }

    /// Removes the entry for `key`.
    public func removeEntry(forKey key: CacheKey) {
        let removed = state.withLock { $0._remove(key) }
        withExtendedLifetime(removed) {}
    }

    /// Removes every entry.
    public func removeAll() {
        let removed = state.withLock { $0._removeAll() }
        withExtendedLifetime(removed) {}
    }

    /// Removes expired entries.
    ///
    /// - Complexity: O(n)
    public func removeExpired() {
        let date = now()
        removeEntries { _, entry in entry.isExpired(at: date) }
    }

    /// Removes the entries `selection` takes.
    ///
    /// - Complexity: O(n)
    public func removeEntries(_ selection: EntrySelection) {
        removeEntries { key, entry in selection.contains(key: key, partition: entry.metadata.partition) }
    }

    private func removeEntries(where isSelected: (CacheKey, CacheEntry) -> Bool) {
        let removed = state.withLock { state -> [CacheEntry] in
            var removed: [CacheEntry] = []
            for key in state.entries.keysByRecency {
                if let entry = state.entries.peekValue(forKey: key), isSelected(key, entry),
                    let selected = state._remove(key)
                {
                    removed.append(selected)
                }
            }
            return removed
        }
        // Released outside the lock: a decoded object's deinit may be slow.
        withExtendedLifetime(removed) {}
    }

    /// Evicts least recently used entries until the total cost is at most `costLimit`.
    ///
    /// The manager's `trimMemory()` calls this with 0 on memory pressure.
    public func trim(toCost costLimit: Int) {
        let evicted = state.withLock { state -> [CacheEntry] in
            var evicted: [CacheEntry] = []
            while state.entries.totalCost > costLimit, let oldest = state._evictOldest() {
                evicted.append(oldest)
            }
            return evicted
        }
        withExtendedLifetime(evicted) {}
    }

    /// The cost limit: bytes plus decoded objects.
    public var byteLimit: Int? { limits.costLimit }

    /// A snapshot of the counters and current contents.
    public func statistics() -> CacheStatistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.count = state.entries.count
            statistics.cost = state.entries.totalCost
            statistics.bytes = state.dataBytes
            return statistics
        }
    }

    /// The keys from most to least recently used (for tests and diagnostics).
    ///
    /// - Complexity: O(n)
    public var keysByRecency: [CacheKey] {
        state.withLock { $0.entries.keysByRecency }
    }

    /// Checks the LRU structure and the limits; tests call this after every mutation.
    public func _checkInvariants() {
        state.withLock { state in
            state.entries._checkInvariants()
            precondition(state.entries.totalCost <= limits.costLimit, "cost over the limit")
            precondition(state.entries.count <= limits.countLimit, "count over the limit")
        }
    }
}
