import Foundation
import MediaAssets
import Synchronization

/// What reads leave for the writer: the access times not yet saved, the oldest saved access time,
/// and the hit and miss counts. The read connections and the writer share it; its lock is held for
/// a few instructions per read.
final class SQLiteReadLog: Sendable {
    struct State {
        /// Reads not yet written to `access_order`: slot → time.
        var unsavedAccess: AccessTimeBatch<Int64>
        /// The oldest saved access time, or nil when a delete, a save or another process may have
        /// moved it; reads compare the time a row was stored with it (see `SQLiteBackend.settle`).
        var oldestSavedAccess: Double?
        var hits = 0
        var misses = 0
        /// Reads handed to the read queue (entries too large to read inline, or a lock to wait for).
        var handOffs = 0
    }

    let state: Mutex<State>

    init(accessTimeBatchSize: Int) {
        state = Mutex(State(unsavedAccess: AccessTimeBatch(threshold: accessTimeBatchSize)))
    }

    /// Counts a hit and records its access time unless the row was stored in the newer half of the
    /// span from the oldest saved access time to `now` (see `SQLiteBackend.settle`). Returns whether
    /// a batch of times is due to be saved, or nil, recording nothing, when the oldest saved time is
    /// not known: then call `recordAccess(slot:stored:at:oldestSavedAccess:)` with it.
    func recordHit(slot: Int64, stored: Double, at now: Date) -> Bool? {
        state.withLock { state in
            state.hits += 1
            guard let oldest = state.oldestSavedAccess else { return nil }
            return state.record(slot, stored: stored, at: now, oldestSavedAccess: oldest)
        }
    }

    /// Records an access as `recordHit` does, with the oldest saved access time just read.
    func recordAccess(slot: Int64, stored: Double, at now: Date, oldestSavedAccess: Double) -> Bool {
        state.withLock { state in
            let oldest = state.oldestSavedAccess ?? oldestSavedAccess
            state.oldestSavedAccess = oldest
            return state.record(slot, stored: stored, at: now, oldestSavedAccess: oldest)
        }
    }

    func recordMiss() {
        state.withLock { $0.misses += 1 }
    }

    /// The pending access times, for a save; a new batch starts.
    func takeUnsavedAccess() -> [Int64: Date] {
        state.withLock { state in
            state.oldestSavedAccess = nil
            return state.unsavedAccess.take()
        }
    }

    /// Forgets what is known of a row that was deleted.
    func forget(_ slot: Int64) {
        state.withLock { state in
            state.unsavedAccess.forget(slot)
            state.oldestSavedAccess = nil
        }
    }

    /// Forgets the pending times a save wrote (a newer read stays pending).
    func forget(saved times: [Int64: Date]) {
        guard !times.isEmpty else { return }
        state.withLock { state in
            state.unsavedAccess.forget(saved: times)
            state.oldestSavedAccess = nil
        }
    }

    /// Forgets every pending time (every row was deleted).
    func forgetAll() {
        state.withLock { state in
            state.unsavedAccess.forgetAll()
            state.oldestSavedAccess = nil
        }
    }

    /// Forgets the oldest saved time: another process may have changed it.
    func forgetOldestSavedAccess() {
        state.withLock { $0.oldestSavedAccess = nil }
    }

    var unsavedAccessCount: Int { state.withLock { $0.unsavedAccess.count } }
    var pendingAccess: [Int64: Date] { state.withLock { $0.unsavedAccess.pending } }
    var counts: (hits: Int, misses: Int) { state.withLock { ($0.hits, $0.misses) } }
}

extension SQLiteReadLog.State {
    fileprivate mutating func record(_ slot: Int64, stored: Double, at now: Date, oldestSavedAccess oldest: Double)
        -> Bool
    {
        let midpoint = oldest + (now.timeIntervalSinceReferenceDate - oldest) / 2
        guard stored <= midpoint else { return false }
        return unsavedAccess.record(slot, at: now)
    }
}
