import Foundation
import MediaAssets

/// What reads leave for the writer (`SQLiteReadLog`): access times to save, stale rows to delete.
extension SQLiteStore {
    /// Writes the access times that reads recorded in memory, as one transaction of UPDATEs.
    func flushAccessTimes() throws {
        let statements = try openStatements()
        // Access times only order evictions: a batch that cannot be saved is dropped, not retried
        // forever, so a failing disk cannot make the batch grow without bound.
        let pending = readLog.takeUnsavedAccess()
        guard !pending.isEmpty else { return }
        try transaction(statements) { try saveAccessTimes(pending, statements) }
    }

    /// Saves `times` of rows whose saved time is in the older half of the span from the oldest saved
    /// time to now; a newer row keeps its time (see `SQLiteBackend.settle`).
    func saveAccessTimes(_ times: [Int64: Date], _ statements: Statements) throws {
        let oldest = try statements.oldestAccess.withReset { query -> Double in
            try query.step()
            return query.double(at: 0)
        }
        let midpoint = oldest + (configuration.now().timeIntervalSinceReferenceDate - oldest) / 2
        for (slot, lastAccess) in times {
            try statements.updateLastAccess.withReset { update in
                try update.bind(slot, at: 1)
                try update.bind(lastAccess.timeIntervalSinceReferenceDate, at: 2)
                try update.bind(midpoint, at: 3)
                try update.run()
            }
        }
    }

    /// Deletes the row for `key` if it is still one a read must not return (expired, or of a size
    /// that disagrees with its bytes): a read found it so, and a store may have replaced it since.
    func removeStaleEntry(forKey key: CacheKey) throws {
        _ = try openStatements()
        let delete = try connection.prepare(
            "DELETE FROM entries WHERE key = ?1 AND (expires <= ?2 OR size != length(data)) RETURNING slot, size",
            operation: "remove an expired entry")
        defer { delete.finalize() }
        let removed = try recoveringFromFullDisk {
            try delete.withReset { delete -> Row? in
                try delete.bindBlob(utf8Of: key.rawValue, at: 1)
                try delete.bind(configuration.now().timeIntervalSinceReferenceDate, at: 2)
                guard try delete.step() else { return nil }
                let row = (delete.int64(at: 0), Int(delete.int64(at: 1)))
                try delete.run()
                return row
            }
        }
        if let removed { forget(removed) }
        checkpointIfWALOverBudget()
    }
}
