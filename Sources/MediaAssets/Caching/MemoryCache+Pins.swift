import Foundation

extension MemoryCache {
    /// Pins `pin`: the entries it covers leave the LRU order, so neither a store nor `trim(toCost:)`
    /// evicts them, and entries stored later under a covered key join them.
    ///
    /// - Throws: `AssetsError.pinnedQuotaExceeded` when the covered entries do not fit
    ///   `limits.pinnedQuota`; nothing is pinned then.
    /// - Complexity: O(1) for a key; O(n) for an asset.
    public func pin(_ pin: Pin) throws {
        let quota = limits.pinnedQuota
        try state.withLock { state in
            guard !state.pins.contains(pin) else { return }
            let covered: [CacheKey]
            switch pin {
            case .key(let key): covered = state.entries.peekValue(forKey: key) == nil ? [] : [key]
            case .asset: covered = state.entries.keysByRecency.filter(pin.covers)
            }
            let added = covered.reduce(0) { $0 + (state.entries.peekValue(forKey: $1)?.memoryCost ?? 0) }
            guard state.pinnedCost + added <= quota else {
                throw AssetsError.pinnedQuotaExceeded(
                    key: pin.key, bytes: added, pinnedBytes: state.pinnedCost, quota: quota)
            }
            state.pins.insert(pin)
            // Oldest first, so they keep their order among themselves if they are unpinned later.
            for key in covered.reversed() {
                if let entry = state.entries.removeValue(forKey: key)?.value {
                    state.pinned[key] = entry
                    state.pinnedCost += entry.memoryCost
                }
            }
        }
    }

    /// Removes `pin`; the entries no other pin covers go back to the LRU order as the most recently
    /// used.
    public func unpin(_ pin: Pin) {
        state.withLock { state in
            guard state.pins.remove(pin) else { return }
            for (key, entry) in state.pinned where !state.pins.covers(key) {
                state.pinned[key] = nil
                state.pinnedCost -= entry.memoryCost
                state.entries.setValue(entry, forKey: key, cost: entry.memoryCost)
            }
        }
    }

    /// The pins held.
    package var pins: [Pin] { state.withLock { $0.pins.pins } }

    /// The keys held now, pinned ones first, in batches of `batchSize`.
    public func storedKeys(batchSize: Int) -> AsyncThrowingStream<[CacheKey], any Error> {
        let keys = state.withLock { Array($0.pinned.keys) + $0.entries.keysByRecency }
        var batches = stride(from: 0, to: keys.count, by: max(1, batchSize)).map {
            Array(keys[$0..<min($0 + max(1, batchSize), keys.count)])
        }.makeIterator()
        return AsyncThrowingStream { continuation in
            while let batch = batches.next() { continuation.yield(batch) }
            continuation.finish()
        }
    }
}
