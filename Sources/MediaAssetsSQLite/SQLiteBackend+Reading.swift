import Foundation
import MediaAssets

extension SQLiteBackend {
    /// Returns the live entry for `key`, or nil; an expired row is a miss (and is deleted).
    ///
    /// The row is read on a read connection of its own, never behind a write: on the caller's thread
    /// when the entry is at most `Configuration.largestInlineRead` bytes (no hand-off), else on the
    /// read queue.
    ///
    /// - Complexity: O(log n): one search of the table's B-tree.
    public func entry(forKey key: CacheKey) async throws -> CacheEntry? {
        try await entries(forKeys: [key])[0]
    }

    /// Returns the live entries for `keys`, in order: on the caller's thread while their sizes add up
    /// to at most `Configuration.largestInlineRead` bytes, the rest in one hop to the read queue.
    public func entries(forKeys keys: [CacheKey]) async throws -> [CacheEntry?] {
        var found: [CacheEntry?] = []
        found.reserveCapacity(keys.count)
        var inlineBytes = configuration.largestInlineRead
        try reporting(readFailed(keys.first ?? "")) {
            try readers.withReader { reader in
                for key in keys {
                    let outcome = try reader.read(
                        key, slots: slots(of: key), now: configuration.now(), largestSize: inlineBytes, waits: false)
                    if case .deferred = outcome { return }
                    let entry = try settle(outcome, forKey: key, reader: reader)
                    inlineBytes -= entry?.size ?? 0
                    found.append(entry)
                }
            }
        }
        guard found.count < keys.count else { return found }
        let rest = Array(keys[found.count...])
        readLog.state.withLock { $0.handOffs += 1 }
        let restFound = try await on(readQueue) { [self] in
            try reporting(readFailed(rest[0])) {
                try readers.withReader { reader in
                    try rest.map { key in
                        let outcome = try reader.read(
                            key, slots: slots(of: key), now: configuration.now(), largestSize: .max, waits: true)
                        return try settle(outcome, forKey: key, reader: reader)
                    }
                }
            }
        }
        return found + restFound
    }

    /// Counts a read and leaves the writer what it asks for: an access time to save (a batch is
    /// saved on the write queue once full), an expired row to delete.
    ///
    /// A hit of a row stored in the newer half of the span from the oldest saved access time to now
    /// records nothing: a sweep takes the oldest rows first, down to the low-water mark, so it
    /// reaches this row only after every row older than the midpoint, and saving its time would cost
    /// a random page write (the cost of reads at a million entries). Rows stored in the older half
    /// (the entry stored first and read since, in a full cache) are recorded; the save then skips
    /// those whose saved time has reached the newer half since.
    private func settle(_ outcome: SQLiteReader.Outcome, forKey key: CacheKey, reader: SQLiteReader) throws
        -> CacheEntry?
    {
        switch outcome {
        case .hit(let entry, let slot, let stored):
            let now = entry.metadata.lastAccess
            let due =
                try readLog.recordHit(slot: slot, stored: stored, at: now)
                ?? readLog.recordAccess(
                    slot: slot, stored: stored, at: now, oldestSavedAccess: reader.oldestSavedAccess())
            if due { queue.async { [self] in store.withLock { try? $0.flushAccessTimes() } } }
            return entry
        case .stale:
            readLog.recordMiss()
            // Still a miss if the delete fails; the next read or removeExpired() tries again.
            queue.async { [self] in store.withLock { try? $0.removeStaleEntry(forKey: key) } }
            return nil
        case .miss, .deferred:
            readLog.recordMiss()
            return nil
        }
    }

    private func slots(of key: CacheKey) -> SQLiteKeySlots {
        SQLiteKeySlots(key: key, hash: configuration.keyHash)
    }
}
