import Foundation
import MediaAssets

extension SQLiteStore {
    /// A row's identity and size, as deletes report them.
    typealias Row = (rowID: Int64, size: Int)

    /// Stores `entry` in one transaction: delete the old row, insert the new one, and if the limit
    /// is passed, evict least recently used rows down to the low-water mark. On any failure the
    /// transaction rolls back, so the old row is still there.
    func writeEntry(_ entry: CacheEntry, forKey key: CacheKey) throws {
        let statements = try openStatements()
        let size = entry.data.count
        guard size <= configuration.sizeLimit else {
            // Too large to keep: drop the older entry too, so a read never returns stale bytes.
            counters.rejectedTooLarge += 1
            try removeEntry(forKey: key)
            return
        }
        let now = configuration.now().timeIntervalSinceReferenceDate
        // A sweep orders rows by last_access, so pending reads are saved first, in the same transaction.
        let savedAccess = size > configuration.sizeLimit - totalBytes ? unsavedAccess : [:]
        var replaced: Row?
        var evicted: [Row] = []
        try transaction(statements) {
            try saveAccessTimes(savedAccess, statements)
            replaced = try deleteRow(forKey: key, statements)
            try insert(entry, forKey: key, lastAccess: now, statements)
            let projected = totalBytes - (replaced?.size ?? 0) + size
            if projected > configuration.sizeLimit {
                evicted = try evictLeastRecent(from: projected, keeping: connection.lastInsertRowID, statements)
            }
        }
        // Committed: the in-memory state follows the file.
        for rowID in savedAccess.keys { unsavedAccess[rowID] = nil }
        if let replaced { forget(replaced) }
        for row in evicted { forget(row) }
        totalBytes += size
        count += 1
        counters.writes += 1
        counters.evictions += evicted.count
    }

    /// Deletes the row for `key`, if any.
    func removeEntry(forKey key: CacheKey) throws {
        let statements = try openStatements()
        if let removed = try deleteRow(forKey: key, statements) { forget(removed) }
    }

    /// Deletes every row, then shrinks the file (`VACUUM` of an empty table is quick, and spares
    /// every write the cost of `auto_vacuum` bookkeeping).
    func removeAll() throws {
        let statements = try openStatements()
        try statements.deleteAll.withReset { try $0.run() }
        totalBytes = 0
        count = 0
        unsavedAccess.removeAll()
        // Only the file's size depends on this: a failure leaves free pages for later writes.
        try? connection.execute("VACUUM", operation: "shrink the file")
    }

    /// Deletes the rows whose `expires` has passed, in one statement (so one transaction).
    func removeExpired() throws {
        let statements = try openStatements()
        let now = configuration.now().timeIntervalSinceReferenceDate
        let removed = try statements.deleteExpired.withReset { delete -> [Row] in
            try delete.bind(now, at: 1)
            var rows: [Row] = []
            while try delete.step() { rows.append((delete.int64(at: 0), Int(delete.int64(at: 1)))) }
            return rows
        }
        for row in removed { forget(row) }
    }

    /// Writes the access times that reads recorded in memory, as one transaction of UPDATEs.
    func flushAccessTimes() throws {
        isFlushScheduled = false
        guard !unsavedAccess.isEmpty else { return }
        let statements = try openStatements()
        let pending = unsavedAccess
        // Access times only order evictions: a batch that cannot be saved is dropped, not retried
        // forever, so a failing disk cannot make the dictionary grow without bound.
        unsavedAccess.removeAll(keepingCapacity: true)
        try transaction(statements) { try saveAccessTimes(pending, statements) }
    }

    /// Evicts least recently used rows until the total is at the low-water mark; runs at open (when
    /// the limit was lowered since the file was written), before any read has recorded an access.
    func sweep() throws {
        let statements = try openStatements()
        var evicted: [Row] = []
        try transaction(statements) { evicted = try evictLeastRecent(from: totalBytes, keeping: nil, statements) }
        for row in evicted { forget(row) }
        counters.evictions += evicted.count
    }

    // MARK: Steps of the operations above

    /// Runs `body` between BEGIN IMMEDIATE and COMMIT, rolling back if anything throws.
    private func transaction(_ statements: Statements, _ body: () throws -> Void) throws {
        try statements.begin.withReset { try $0.run() }
        do {
            try body()
            try statements.commit.withReset { try $0.run() }
        } catch {
            // If SQLite already rolled back on its own, this fails harmlessly.
            try? statements.rollback.withReset { try $0.run() }
            throw error
        }
    }

    private func deleteRow(forKey key: CacheKey, _ statements: Statements) throws -> Row? {
        try statements.deleteByKey.withReset { delete -> Row? in
            try delete.bindBlob(utf8Of: key.rawValue, at: 1)
            guard try delete.step() else { return nil }
            let row = (delete.int64(at: 0), Int(delete.int64(at: 1)))
            try delete.run()
            return row
        }
    }

    private func insert(
        _ entry: CacheEntry, forKey key: CacheKey, lastAccess: Double, _ statements: Statements
    ) throws {
        // The test hook declares a size the CHECK constraint rejects: SQLite itself fails the insert.
        let declaredSize = failsNextWrite ? -1 : Int64(entry.data.count)
        failsNextWrite = false
        let metadata = entry.metadata
        try statements.insert.withReset { insert in
            try insert.bindBlob(utf8Of: key.rawValue, at: 1)
            try insert.bind(declaredSize, at: 2)
            try insert.bind(metadata.created.timeIntervalSinceReferenceDate, at: 3)
            try insert.bind(lastAccess, at: 4)
            try insert.bind(metadata.expires?.timeIntervalSinceReferenceDate, at: 5)
            try insert.bind(metadata.freshUntil?.timeIntervalSinceReferenceDate, at: 6)
            try insert.bind(metadata.etag, at: 7)
            try insert.bind(metadata.lastModified, at: 8)
            try insert.bind(metadata.contentType, at: 9)
            try insert.bind(metadata.partition?.rawValue, at: 11)
            // Bound without a copy: the bytes stay alive until the step below has written them.
            try entry.data.withUnsafeBytes { bytes in
                try insert.bindBlobNoCopy(bytes, at: 10)
                try insert.run()
            }
        }
    }

    private func saveAccessTimes(_ times: [Int64: Double], _ statements: Statements) throws {
        for (rowID, lastAccess) in times {
            try statements.updateLastAccess.withReset { update in
                try update.bind(rowID, at: 1)
                try update.bind(lastAccess, at: 2)
                try update.run()
            }
        }
    }

    /// Deletes least recently used rows (never `keptRowID`) until `bytes` is at the low-water mark.
    private func evictLeastRecent(
        from bytes: Int, keeping keptRowID: Int64?, _ statements: Statements
    ) throws -> [Row] {
        var victims: [Row] = []
        var remaining = bytes
        // Collect first, delete after: a query should not walk rows its own connection is deleting.
        try statements.selectLeastRecent.withReset { query in
            while remaining > configuration.lowWaterMark, try query.step() {
                let rowID = query.int64(at: 0)
                guard rowID != keptRowID else { continue }
                let size = Int(query.int64(at: 1))
                victims.append((rowID, size))
                remaining -= size
            }
        }
        for victim in victims {
            try statements.deleteByRowID.withReset { delete in
                try delete.bind(victim.rowID, at: 1)
                try delete.run()
            }
        }
        return victims
    }

    func forget(_ row: Row) {
        unsavedAccess[row.rowID] = nil
        totalBytes -= row.size
        count -= 1
    }
}
