import CSQLite
import Foundation
import MediaAssets

extension SQLiteStore {
    /// A row's identity and size, as deletes report them.
    typealias Row = (rowID: Int64, size: Int)

    /// Stores `entry` in one transaction: delete the old row, make room (evicting least recently
    /// used rows while the data would pass the limit or the pages their budget), insert the new row.
    /// On any failure the transaction rolls back, so the old row is still there; a full filesystem
    /// is recovered from once (see `recoveringFromFullDisk`).
    func writeEntry(_ entry: CacheEntry, forKey key: CacheKey) throws {
        let statements = try openStatements()
        let size = entry.data.count
        let pages = budget.estimatedPages(size: size, keyLength: key.rawValue.utf8.count)
        guard size <= configuration.sizeLimit, pages <= budget.databasePages - SQLiteSchema.emptyPages else {
            // Too large to keep: drop the older entry too, so a read never returns stale bytes.
            counters.rejectedTooLarge += 1
            try removeEntry(forKey: key)
            return
        }
        try recoveringFromFullDisk(incomingBytes: size) {
            try writeEntryOnce(entry, forKey: key, pages: pages, statements)
        }
        checkpointIfWALOverBudget()
    }

    private func writeEntryOnce(
        _ entry: CacheEntry, forKey key: CacheKey, pages: Int, _ statements: Statements
    ) throws {
        let now = configuration.now().timeIntervalSinceReferenceDate
        var savedAccess: [Int64: Date] = [:]
        var replaced: Row?
        var evicted: [Row] = []
        var rejected = false
        try transaction(statements) {
            replaced = try deleteRow(forKey: key, statements)
            // Decided after the delete: a replaced pinned row no longer counts against the quota.
            let isPinned = try admitsPinned(entry.data.count, forKey: key)
            let room = isPinned || pins.isEmpty ? configuration.sizeLimit : try unpinnedRoom()
            guard entry.data.count <= room else {
                // Too large beside the pinned rows: the older entry goes too, as for any entry too large.
                rejected = true
                return
            }
            let slots = SQLiteKeySlots(key: key, hash: configuration.keyHash)
            let slot: Int64
            if let free = try slots.firstFree(statements.occupiedSlots) {
                slot = free
            } else {
                try saveAccessTimesBeforeEvicting(&savedAccess, statements)
                let displaced = try displaceLeastRecent(among: slots, statements)
                evicted.append(displaced)
                slot = displaced.rowID
            }
            var needed = Room(
                dataBytes: totalBytes - (replaced?.size ?? 0) - evicted.reduce(0) { $0 + $1.size },
                incomingBytes: entry.data.count, incomingPages: pages
            )
            evicted += try makeRoom(&needed, keeping: nil, savingAccess: &savedAccess, statements)
            try insert(entry, forKey: key, slot: slot, storedAt: now, statements)
            if isPinned { try markPinned(rowID: slot, size: entry.data.count) }
            // The page estimate may be low: check what the insert really used.
            needed = Room(dataBytes: needed.dataBytes + entry.data.count, incomingBytes: 0, incomingPages: 0)
            evicted += try makeRoom(&needed, keeping: slot, savingAccess: &savedAccess, statements)
        }
        // Committed: the in-memory state follows the file.
        readLog.forget(saved: savedAccess)
        if let replaced { forget(replaced) }
        for row in evicted { forget(row) }
        guard !rejected else {
            counters.rejectedTooLarge += 1
            return
        }
        totalBytes += entry.data.count
        count += 1
        counters.writes += 1
        counters.evictions += evicted.count
    }

    /// Stores `batch` in one transaction when it fits without evicting (benchmarks fill a large file
    /// this way: one commit per entry would write a WAL frame per page each time); otherwise one
    /// `writeEntry` each. A key twice in the batch keeps its last entry.
    func writeEntries(_ batch: [(key: CacheKey, entry: CacheEntry)]) throws {
        let statements = try openStatements()
        let incomingBytes = batch.reduce(0) { $0 + $1.entry.data.count }
        let incomingPages = batch.reduce(0) {
            $0 + budget.estimatedPages(size: $1.entry.data.count, keyLength: $1.key.rawValue.utf8.count)
        }
        let now = configuration.now().timeIntervalSinceReferenceDate
        var replaced: [Row] = []
        var fits = false
        try recoveringFromFullDisk(incomingBytes: incomingBytes) {
            replaced = []
            do {
                try transaction(statements) {
                    // Pinned keys need their quota checked: such a batch goes one entry at a time.
                    fits =
                        try totalBytes + incomingBytes <= configuration.sizeLimit
                        && usedPages() + incomingPages <= budget.databasePages
                        && (pins.isEmpty || !batch.contains { pins.covers($0.key) })
                    guard fits else { return }
                    for (key, entry) in batch {
                        if let row = try deleteRow(forKey: key, statements) { replaced.append(row) }
                        let slots = SQLiteKeySlots(key: key, hash: configuration.keyHash)
                        // Every slot taken needs an eviction: the batch rolls back and goes one at a time.
                        guard let slot = try slots.firstFree(statements.occupiedSlots) else { throw SlotsTaken() }
                        try insert(entry, forKey: key, slot: slot, storedAt: now, statements)
                    }
                }
            } catch is SlotsTaken {
                fits = false
            }
        }
        guard fits else {
            for (key, entry) in batch { try writeEntry(entry, forKey: key) }
            return
        }
        for row in replaced { forget(row) }
        totalBytes += incomingBytes
        count += batch.count
        counters.writes += batch.count
        checkpointIfWALOverBudget()
    }

    /// Deletes the row for `key`, if any.
    func removeEntry(forKey key: CacheKey) throws {
        let statements = try openStatements()
        let removed = try recoveringFromFullDisk { try deleteRow(forKey: key, statements) }
        if let removed { forget(removed) }
        checkpointIfWALOverBudget()
    }

    /// Replaces the metadata columns of the live row for `key` in one transaction, leaving its bytes,
    /// its access time and the totals as they are; returns whether there was such a row.
    ///
    /// SQLite writes a row again whole, blob included, unless its size is unchanged: then in place,
    /// only the pages whose bytes changed. With `data` last and every date 8 bytes, the new dates and
    /// same validators of a 304 keep the size, and the row's first page is all that is written (and
    /// the expiry index's page when the expiry moved).
    func updateMetadata(_ metadata: CacheMetadata, forKey key: CacheKey) throws -> Bool {
        let statements = try openStatements()
        let now = configuration.now().timeIntervalSinceReferenceDate
        var updated = false
        try recoveringFromFullDisk {
            try transaction(statements) {
                updated = try statements.updateMetadata.withReset { update -> Bool in
                    try bind(metadata, forKey: key, to: update)
                    try update.bind(now, at: update.parameter(":now"))
                    try update.run()
                    return connection.changes > 0
                }
                guard updated else { return }
                for update in [statements.updateExpiry, statements.updatePartition] {
                    try update.withReset { update in
                        try bind(metadata, forKey: key, to: update)
                        try update.run()
                    }
                }
            }
        }
        checkpointIfWALOverBudget()
        return updated
    }

    /// Deletes every row, then shrinks the file (`VACUUM` of an empty table is quick, and spares
    /// every write the cost of `auto_vacuum` bookkeeping).
    func removeAll() throws {
        let statements = try openStatements()
        try recoveringFromFullDisk { try statements.deleteAll.withReset { try $0.run() } }
        totalBytes = 0
        count = 0
        pinnedTotalsCache = nil
        readLog.forgetAll()
        // Only the file's size depends on this: a failure leaves free pages for later writes.
        try? connection.execute("VACUUM", operation: "shrink the file")
    }

    /// Deletes the rows whose `expires` has passed, in one statement (so one transaction).
    func removeExpired() throws {
        let statements = try openStatements()
        let now = configuration.now().timeIntervalSinceReferenceDate
        let removed = try recoveringFromFullDisk {
            try statements.deleteExpired.withReset { delete -> [Row] in
                try delete.bind(now, at: 1)
                var rows: [Row] = []
                while try delete.step() { rows.append((delete.int64(at: 0), Int(delete.int64(at: 1)))) }
                return rows
            }
        }
        for row in removed { forget(row) }
        checkpointIfWALOverBudget()
    }

    /// Evicts least recently used rows until the data and the pages are within their limits; runs
    /// at open (the limit may have been lowered since the file was written).
    func sweep() throws {
        let statements = try openStatements()
        var evicted: [Row] = []
        var savedAccess: [Int64: Date] = [:]
        try transaction(statements) {
            var room = Room(dataBytes: totalBytes, incomingBytes: 0, incomingPages: 0)
            evicted = try makeRoom(&room, keeping: nil, savingAccess: &savedAccess, statements)
        }
        readLog.forget(saved: savedAccess)
        for row in evicted { forget(row) }
        counters.evictions += evicted.count
    }

    /// Evicts least recently used rows of about `bytes` in their own transaction: a full filesystem
    /// gets room for a store that failed.
    func evictForFullDisk(bytes: Int) throws {
        let statements = try openStatements()
        var evicted: [Row] = []
        try transaction(statements) { evicted = try evictLeastRecent(freeing: bytes, keeping: nil, statements) }
        for row in evicted { forget(row) }
        counters.evictions += evicted.count
    }

    // MARK: Steps of the operations above

    /// Runs `body` between BEGIN IMMEDIATE and COMMIT, rolling back if anything throws. Under the
    /// write lock, the totals are first brought up to date with other processes' writes.
    func transaction(_ statements: Statements, _ body: () throws -> Void) throws {
        try statements.begin.withReset { try $0.run() }
        do {
            try refreshTotalsIfChangedElsewhere()
            try body()
            try statements.commit.withReset { try $0.run() }
        } catch {
            pinnedTotalsCache = nil
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
            // Its pin, if any, went with it (a trigger).
            pinnedTotalsCache = nil
            return row
        }
    }

    private func insert(
        _ entry: CacheEntry, forKey key: CacheKey, slot: Int64, storedAt stored: Double, _ statements: Statements
    ) throws {
        // The test hook declares a size the CHECK constraint rejects: SQLite itself fails the insert.
        let declaredSize = failsNextWrite ? -1 : Int64(entry.data.count)
        failsNextWrite = false
        try statements.insert.withReset { insert in
            try bind(entry.metadata, forKey: key, to: insert)
            try insert.bind(slot, at: insert.parameter(":slot"))
            try insert.bind(declaredSize, at: insert.parameter(":size"))
            try insert.bind(stored, at: insert.parameter(":stored"))
            // Bound without a copy: the bytes stay alive until the step below has written them.
            try entry.data.withUnsafeBytes { bytes in
                try insert.bindBlobNoCopy(bytes, at: insert.parameter(":data"))
                try insert.run()
            }
        }
    }

    /// What a write is making room for: the data held without it, and its bytes and pages.
    struct Room {
        var dataBytes: Int
        var incomingBytes: Int
        var incomingPages: Int
    }

    /// Evicts least recently used rows (never `keptRowID`) while the data plus the incoming bytes
    /// pass the limit, or the used pages plus the incoming pages pass the page budget; each sweep
    /// goes down to the low-water marks. Pending access times are saved first, since they order it.
    private func makeRoom(
        _ room: inout Room, keeping keptRowID: Int64?, savingAccess savedAccess: inout [Int64: Date],
        _ statements: Statements
    ) throws -> [Row] {
        var evicted: [Row] = []
        while true {
            let dataNeeded = room.dataBytes + room.incomingBytes
            let pagesNeeded = try usedPages() + room.incomingPages
            let dataOver = dataNeeded > configuration.sizeLimit
            let pagesOver = pagesNeeded > budget.databasePages
            guard dataOver || pagesOver else { return evicted }
            try saveAccessTimesBeforeEvicting(&savedAccess, statements)
            let dataToFree = dataOver ? dataNeeded - configuration.lowWaterMark : 0
            let pagesToFree = pagesOver ? pagesNeeded - budget.lowWaterPages : 0
            let batch = try evictLeastRecent(
                freeing: max(dataToFree, pagesToFree * budget.pageSize), keeping: keptRowID, statements
            )
            guard !batch.isEmpty else { return evicted }
            evicted += batch
            room.dataBytes -= batch.reduce(0) { $0 + $1.size }
        }
    }

    /// Binds `key` and the fields of `metadata` to the parameters of their column's names
    /// (`:key`, `:created`, `:expires`, …) that `statement` has.
    private func bind(_ metadata: CacheMetadata, forKey key: CacheKey, to statement: SQLiteStatement) throws {
        let dates: [(name: String, value: Date?)] = [
            (":created", metadata.created), (":expires", metadata.expires), (":fresh_until", metadata.freshUntil),
            (":stale_while_revalidate_until", metadata.staleWhileRevalidateUntil),
            (":stale_if_error_until", metadata.staleIfErrorUntil),
        ]
        let texts: [(name: String, value: String?)] = [
            (":etag", metadata.etag), (":last_modified", metadata.lastModified),
            (":content_type", metadata.contentType), (":partition_name", metadata.partition?.rawValue),
        ]
        for (name, date) in dates where statement.parameter(name) > 0 {
            try statement.bind(date?.timeIntervalSinceReferenceDate, at: statement.parameter(name))
        }
        for (name, text) in texts where statement.parameter(name) > 0 {
            try statement.bind(text, at: statement.parameter(name))
        }
        try statement.bindBlob(utf8Of: key.rawValue, at: statement.parameter(":key"))
    }

    /// Saves the pending access times, once per transaction, since they order evictions; the caller
    /// forgets them once the transaction commits.
    private func saveAccessTimesBeforeEvicting(_ savedAccess: inout [Int64: Date], _ statements: Statements) throws {
        guard savedAccess.isEmpty, readLog.unsavedAccessCount > 0 else { return }
        savedAccess = readLog.pendingAccess
        try saveAccessTimes(savedAccess, statements)
    }

    /// Deletes the least recently used unpinned row among `slots`, all of which are taken (only keys
    /// built to collide fill 16 slots), so that a store can take its slot.
    private func displaceLeastRecent(among slots: SQLiteKeySlots, _ statements: Statements) throws -> Row {
        let query = try connection.prepare(
            """
            SELECT entries.slot, entries.size FROM entries JOIN access_order ON access_order.entry = entries.slot
                WHERE entries.slot BETWEEN ?1 AND ?2 AND entries.slot NOT IN (SELECT entry FROM pinned_entries)
                ORDER BY access_order.last_access LIMIT 1
            """,
            operation: "store an entry among colliding keys"
        )
        defer { query.finalize() }
        let victim = try query.withReset { query -> Row? in
            try query.bind(slots.first, at: 1)
            try query.bind(slots.last, at: 2)
            guard try query.step() else { return nil }
            return (query.int64(at: 0), Int(query.int64(at: 1)))
        }
        guard let victim else {
            throw SQLiteError.statementFailed(
                path: path, operation: query.operation, code: SQLITE_CONSTRAINT,
                message: "the \(SQLiteKeySlots.count) rows its key's hash places it among are all pinned")
        }
        try statements.deleteByRowID.withReset { delete in
            try delete.bind(victim.rowID, at: 1)
            try delete.run()
        }
        return victim
    }

    /// Deletes least recently used rows (never `keptRowID`) until at least `bytes` of data are freed.
    private func evictLeastRecent(
        freeing bytes: Int, keeping keptRowID: Int64?, _ statements: Statements
    ) throws -> [Row] {
        var victims: [Row] = []
        var freed = 0
        // Collect first, delete after: a query should not walk rows its own connection is deleting.
        try statements.selectLeastRecent.withReset { query in
            while freed < max(bytes, 1), try query.step() {
                let rowID = query.int64(at: 0)
                guard rowID != keptRowID else { continue }
                let size = Int(query.int64(at: 1))
                victims.append((rowID, size))
                freed += size
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
        pinnedTotalsCache = nil
        readLog.forget(row.rowID)
        totalBytes -= row.size
        count -= 1
    }
}

/// A batch store found every slot of a key taken: it rolls back and stores one entry at a time.
private struct SlotsTaken: Error {}
