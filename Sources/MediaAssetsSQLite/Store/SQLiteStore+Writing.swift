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
            var needed = Room(
                dataBytes: totalBytes - (replaced?.size ?? 0), incomingBytes: entry.data.count, incomingPages: pages
            )
            evicted = try makeRoom(&needed, keeping: nil, savingAccess: &savedAccess, statements)
            try insert(entry, forKey: key, lastAccess: now, statements)
            let rowID = connection.lastInsertRowID
            if isPinned { try markPinned(rowID: rowID, size: entry.data.count) }
            // The page estimate may be low: check what the insert really used.
            needed = Room(dataBytes: needed.dataBytes + entry.data.count, incomingBytes: 0, incomingPages: 0)
            evicted += try makeRoom(&needed, keeping: rowID, savingAccess: &savedAccess, statements)
        }
        // Committed: the in-memory state follows the file.
        unsavedAccess.forget(saved: savedAccess)
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
            try transaction(statements) {
                // Pinned keys need their quota checked: such a batch goes one entry at a time.
                fits =
                    try totalBytes + incomingBytes <= configuration.sizeLimit
                    && usedPages() + incomingPages <= budget.databasePages
                    && (pins.isEmpty || !batch.contains { pins.covers($0.key) })
                guard fits else { return }
                for (key, entry) in batch {
                    if let row = try deleteRow(forKey: key, statements) { replaced.append(row) }
                    try insert(entry, forKey: key, lastAccess: now, statements)
                }
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

    /// Deletes every row, then shrinks the file (`VACUUM` of an empty table is quick, and spares
    /// every write the cost of `auto_vacuum` bookkeeping).
    func removeAll() throws {
        let statements = try openStatements()
        try recoveringFromFullDisk { try statements.deleteAll.withReset { try $0.run() } }
        totalBytes = 0
        count = 0
        pinnedTotalsCache = nil
        unsavedAccess.forgetAll()
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

    /// Writes the access times that reads recorded in memory, as one transaction of UPDATEs.
    func flushAccessTimes() throws {
        let statements = try openStatements()
        // Access times only order evictions: a batch that cannot be saved is dropped, not retried
        // forever, so a failing disk cannot make the batch grow without bound.
        let pending = unsavedAccess.take()
        guard !pending.isEmpty else { return }
        oldestSavedAccess = nil
        try transaction(statements) { try saveAccessTimes(pending, statements) }
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
        unsavedAccess.forget(saved: savedAccess)
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
            try insert.bind(metadata.staleWhileRevalidateUntil?.timeIntervalSinceReferenceDate, at: 12)
            try insert.bind(metadata.staleIfErrorUntil?.timeIntervalSinceReferenceDate, at: 13)
            // Bound without a copy: the bytes stay alive until the step below has written them.
            try entry.data.withUnsafeBytes { bytes in
                try insert.bindBlobNoCopy(bytes, at: 10)
                try insert.run()
            }
        }
    }

    private func saveAccessTimes(_ times: [Int64: Date], _ statements: Statements) throws {
        for (rowID, lastAccess) in times {
            try statements.updateLastAccess.withReset { update in
                try update.bind(rowID, at: 1)
                try update.bind(lastAccess.timeIntervalSinceReferenceDate, at: 2)
                try update.run()
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
            if savedAccess.isEmpty, unsavedAccess.count > 0 {
                savedAccess = unsavedAccess.pending
                try saveAccessTimes(savedAccess, statements)
            }
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
        unsavedAccess.forget(row.rowID)
        oldestSavedAccess = nil
        totalBytes -= row.size
        count -= 1
    }
}
