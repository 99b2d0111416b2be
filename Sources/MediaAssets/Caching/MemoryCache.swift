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
        /// The most cost pinned entries may take, within `costLimit`: the rest stays for the LRU.
        public var pinnedQuota: Int

        /// Creates limits; negative values count as 0, and a limit of 0 stores nothing. The pinned
        /// quota defaults to a quarter of the cost limit and is at most the cost limit.
        public init(costLimit: Int, countLimit: Int = .max, pinnedQuota: Int? = nil) {
            self.costLimit = max(0, costLimit)
            self.countLimit = max(0, countLimit)
            self.pinnedQuota = min(max(0, pinnedQuota ?? self.costLimit / 4), self.costLimit)
        }
    }

    /// The entries in LRU order, and the pinned ones apart from it, where no eviction reaches them.
    struct State {
        var entries = LRUList<CacheKey, CacheEntry>()
        var pinned: [CacheKey: CacheEntry] = [:]
        var pinnedCost = 0
        var pins = PinSet()
        var statistics = CacheStatistics()
        var dataBytes = 0

        var totalCost: Int { entries.totalCost + pinnedCost }
        var count: Int { entries.count + pinned.count }

        mutating func _set(_ entry: CacheEntry, forKey key: CacheKey, cost: Int) -> CacheEntry? {
            let replaced = entries.setValue(entry, forKey: key, cost: cost) ?? _removePinned(key)
            dataBytes += entry.size - (replaced?.size ?? 0)
            return replaced
        }

        mutating func _setPinned(_ entry: CacheEntry, forKey key: CacheKey) -> CacheEntry? {
            let replaced: CacheEntry?
            if let old = pinned.updateValue(entry, forKey: key) {
                pinnedCost -= old.memoryCost
                replaced = old
            } else {
                replaced = entries.removeValue(forKey: key)?.value
            }
            pinnedCost += entry.memoryCost
            dataBytes += entry.size - (replaced?.size ?? 0)
            return replaced
        }

        mutating func _removePinned(_ key: CacheKey) -> CacheEntry? {
            guard !pinned.isEmpty, let removed = pinned.removeValue(forKey: key) else { return nil }
            pinnedCost -= removed.memoryCost
            return removed
        }

        mutating func _remove(_ key: CacheKey) -> CacheEntry? {
            guard let removed = entries.removeValue(forKey: key)?.value ?? _removePinned(key) else { return nil }
            dataBytes -= removed.size
            return removed
        }

        mutating func _evictOldest() -> CacheEntry? {
            guard let oldest = entries.removeLeastRecent()?.value else { return nil }
            dataBytes -= oldest.size
            statistics.evictions += 1
            return oldest
        }

        mutating func _removeAll() -> (LRUList<CacheKey, CacheEntry>, [CacheKey: CacheEntry]) {
            var removed = LRUList<CacheKey, CacheEntry>()
            swap(&removed, &entries)
            defer {
                pinned = [:]
                pinnedCost = 0
                dataBytes = 0
            }
            return (removed, pinned)
        }
    }

    /// The partition's limits.
    public let limits: Limits
    let now: @Sendable () -> Date
    let state = Mutex(State())

    /// Creates an empty cache with the cost and count limits `limits`, reading the real time for expiry.
    public convenience init(limits: Limits) {
        self.init(limits: limits, now: Date.init)
    }

    /// Creates an empty cache whose expiry reads `now`: the manager's clock for its partitions, a test's own.
    package init(limits: Limits, now: @escaping @Sendable () -> Date) {
        self.limits = limits
        self.now = now
    }

    /// Returns the live entry for `key`, marking it most recently used.
    ///
    /// - Complexity: O(1)
    public func entry(forKey key: CacheKey) -> CacheEntry? {
        // The clock is read outside the lock, and only for entries that can expire.
        let found = state.withLock { state -> CacheEntry? in
            // Pinned entries are looked up only on an LRU miss, and only when there are some.
            guard let entry = state.entries.value(forKey: key) ?? (state.pinned.isEmpty ? nil : state.pinned[key])
            else {
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
            guard let current = state.entries.peekValue(forKey: key) ?? state.pinned[key],
                current.isSameStorage(as: found)
            else {
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

    /// Stores `entry` at once, like `store(_:forKey:)`; an entry under a pinned key that the pinned
    /// quota cannot take is kept unpinned (evictable) instead of failing.
    ///
    /// - Complexity: O(1) amortized
    public func insert(_ entry: CacheEntry, forKey key: CacheKey) {
        let released = state.withLock { state -> Released in
            (try? _store(entry, forKey: key, state: &state, pinnedIfCovered: true))
                ?? (try? _store(entry, forKey: key, state: &state, pinnedIfCovered: false)) ?? Released()
        }
        withExtendedLifetime(released) {}
    }

    /// Stores `entry`, evicting least recently used entries to stay within the limits.
    ///
    /// An unpinned entry costlier than what the pinned entries leave of `limits.costLimit` is not
    /// stored (and any older entry for the key is removed, so a read never returns stale data); it is
    /// counted in `rejectedTooLarge`. An entry under a pinned key is kept apart from the LRU order.
    ///
    /// - Throws: `AssetsError.pinnedQuotaExceeded` when the key is pinned and the entry would take
    ///   the pinned entries past `limits.pinnedQuota`; the older entry stays.
    /// - Complexity: O(1) amortized, plus O(1) per eviction.
    public func store(_ entry: CacheEntry, forKey key: CacheKey) throws {
        // Replaced and evicted entries are released after the lock is dropped: their deinit
        // may run user code.
        let released = try state.withLock { state in
            try _store(entry, forKey: key, state: &state, pinnedIfCovered: true)
        }
        withExtendedLifetime(released) {}
    }

    private func _store(
        _ entry: CacheEntry, forKey key: CacheKey, state: inout State, pinnedIfCovered: Bool
    ) throws -> Released {
        let cost = entry.memoryCost
        let limits = self.limits
        var released: Released
        if pinnedIfCovered, !state.pins.isEmpty, state.pins.covers(key) {
            let others = state.pinnedCost - (state.pinned[key]?.memoryCost ?? 0)
            guard others + cost <= limits.pinnedQuota, limits.countLimit > 0 else {
                throw AssetsError.pinnedQuotaExceeded(
                    key: key, bytes: cost, pinnedBytes: others, quota: limits.pinnedQuota)
            }
            released = Released(replaced: state._setPinned(entry, forKey: key))
        } else {
            guard cost <= limits.costLimit - state.pinnedCost, limits.countLimit > state.pinned.count else {
                state.statistics.rejectedTooLarge += 1
                return Released(replaced: state._remove(key))
            }
            released = Released(replaced: state._set(entry, forKey: key, cost: cost))
        }
        state.statistics.writes += 1
        while state.totalCost > limits.costLimit || state.count > limits.countLimit,
            let oldest = state._evictOldest()
        {
            released.add(evicted: oldest)
        }
        return released
    }

    /// What a store takes out of the cache, to release once the lock is dropped.
    struct Released {
        var replaced: CacheEntry?
        /// The usual single eviction, kept out of `moreEvicted` so that it allocates nothing.
        var firstEvicted: CacheEntry?
        var moreEvicted: [CacheEntry] = []

        mutating func add(evicted: CacheEntry) {
            if firstEvicted == nil { firstEvicted = evicted } else { moreEvicted.append(evicted) }
        }
    }

    /// Replaces the metadata of the live entry under `key`, keeping its bytes, decoded object and cost,
    /// and marks it most recently used; returns false, changing nothing, when there is none.
    ///
    /// - Complexity: O(1)
    public func updateMetadata(_ metadata: CacheMetadata, forKey key: CacheKey) -> Bool {
        let date = now()
        let replaced = state.withLock { state -> CacheEntry? in
            if let entry = state.entries.value(forKey: key) {
                guard !entry.isExpired(at: date) else { return nil }
                var updated = entry
                updated.metadata = metadata
                state.entries.replaceValueInPlace(updated, forKey: key)
                return entry
            }
            guard !state.pinned.isEmpty, let entry = state.pinned[key], !entry.isExpired(at: date) else { return nil }
            var updated = entry
            updated.metadata = metadata
            state.pinned[key] = updated
            return entry
        }
        // The replaced entry is released outside the lock, like every entry a change takes out.
        return replaced != nil
    }

    /// Removes the entry for `key`, pinned or not.
    public func removeEntry(forKey key: CacheKey) {
        let removed = state.withLock { $0._remove(key) }
        withExtendedLifetime(removed) {}
    }

    /// Removes every entry, pinned ones too; the pins stay.
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

    /// Removes the entries `selection` takes, pinned ones too, under one lock: a reader sees all of
    /// them or none.
    ///
    /// - Complexity: O(n)
    public func removeEntries(_ selection: EntrySelection) {
        removeEntries { key, entry in selection.contains(key: key, partition: entry.metadata.partition) }
    }

    private func removeEntries(where isSelected: (CacheKey, CacheEntry) -> Bool) {
        let removed = state.withLock { state -> [CacheEntry] in
            var removed: [CacheEntry] = []
            for key in state.entries.keysByRecency + Array(state.pinned.keys) {
                if let entry = state.entries.peekValue(forKey: key) ?? state.pinned[key], isSelected(key, entry),
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

    /// Evicts least recently used entries until the total cost is at most `costLimit`, or only
    /// pinned entries are left (they stay, within `limits.pinnedQuota`).
    ///
    /// The manager's `trimMemory()` calls this with 0 on memory pressure.
    public func trim(toCost costLimit: Int) {
        let evicted = state.withLock { state -> [CacheEntry] in
            var evicted: [CacheEntry] = []
            while state.totalCost > costLimit, let oldest = state._evictOldest() {
                evicted.append(oldest)
            }
            return evicted
        }
        withExtendedLifetime(evicted) {}
    }

    /// The cost limit: bytes plus decoded objects.
    public var byteLimit: Int? { limits.costLimit }

    /// A snapshot of the counters and current contents; `pinnedBytes` is the pinned entries' cost.
    public func statistics() -> CacheStatistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.count = state.count
            statistics.cost = state.totalCost
            statistics.bytes = state.dataBytes
            statistics.pinnedCount = state.pinned.count
            statistics.pinnedBytes = state.pinnedCost
            return statistics
        }
    }

    /// The unpinned keys from most to least recently used (for tests and diagnostics).
    ///
    /// - Complexity: O(n)
    package var keysByRecency: [CacheKey] {
        state.withLock { $0.entries.keysByRecency }
    }

    /// Checks the LRU structure and the limits; tests call this after every mutation.
    package func checkInvariants() {
        state.withLock { state in
            state.entries.checkInvariants()
            precondition(state.totalCost <= limits.costLimit, "cost over the limit")
            precondition(state.count <= limits.countLimit, "count over the limit")
            precondition(state.pinnedCost <= limits.pinnedQuota, "pinned cost over the quota")
            precondition(state.pinnedCost == state.pinned.values.reduce(0) { $0 + $1.memoryCost }, "pinned cost")
            precondition(state.pinned.keys.allSatisfy { state.entries.peekValue(forKey: $0) == nil }, "twice held")
        }
    }
}
