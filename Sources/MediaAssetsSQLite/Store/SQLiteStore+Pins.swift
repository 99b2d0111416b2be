import Foundation
import MediaAssets

/// Pins (the `pins` and `pinned_entries` tables of schema version 5) and asset selections.
extension SQLiteStore {
    /// The statements pins use, compiled on first use: a cache that never pins compiles none.
    struct PinStatements {
        let readPins: SQLiteStatement
        let insertPin: SQLiteStatement
        let deletePin: SQLiteStatement
        let pinnedTotals: SQLiteStatement
        let insertPinned: SQLiteStatement
        let pinnedKeys: SQLiteStatement
        let deletePinned: SQLiteStatement

        init(_ connection: SQLiteConnection) throws {
            readPins = try connection.prepare("SELECT kind, key FROM pins", operation: "read the pins")
            insertPin = try connection.prepare(
                "INSERT OR IGNORE INTO pins (kind, key) VALUES (?1, ?2)", operation: "save a pin")
            deletePin = try connection.prepare("DELETE FROM pins WHERE kind = ?1 AND key = ?2", operation: "unpin")
            pinnedTotals = try connection.prepare(
                "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM pinned_entries", operation: "sum the pinned entries")
            insertPinned = try connection.prepare(
                "INSERT OR REPLACE INTO pinned_entries (entry, size) VALUES (?1, ?2)", operation: "pin an entry")
            pinnedKeys = try connection.prepare(
                "SELECT pinned_entries.entry, entries.key FROM pinned_entries JOIN entries "
                    + "ON entries.rowid = pinned_entries.entry",
                operation: "list the pinned entries")
            deletePinned = try connection.prepare(
                "DELETE FROM pinned_entries WHERE entry = ?1", operation: "unpin an entry")
        }

        var all: [SQLiteStatement] {
            [readPins, insertPin, deletePin, pinnedTotals, insertPinned, pinnedKeys, deletePinned]
        }
    }

    func openPinStatements() throws -> PinStatements {
        _ = try openStatements()
        if let pinStatements { return pinStatements }
        let compiled = try PinStatements(connection)
        pinStatements = compiled
        return compiled
    }

    /// The rules in the `pins` table.
    func readPins() throws -> PinSet {
        try openPinStatements().readPins.withReset { query in
            var pins = PinSet()
            while try query.step() {
                let key = CacheKey(String(decoding: query.data(at: 1), as: UTF8.self))
                pins.insert(query.int64(at: 0) == 1 ? .asset(key) : .key(key))
            }
            return pins
        }
    }

    /// The pinned rows' count and size (summed once after each change).
    func pinnedTotals() throws -> (count: Int, bytes: Int) {
        if let pinnedTotalsCache { return pinnedTotalsCache }
        guard !pins.isEmpty else { return (0, 0) }
        let totals = try openPinStatements().pinnedTotals.withReset { query -> (count: Int, bytes: Int) in
            try query.step()
            return (Int(query.int64(at: 0)), Int(query.int64(at: 1)))
        }
        pinnedTotalsCache = totals
        return totals
    }

    /// What the pinned rows leave of the limit: all an unpinned entry may have.
    func unpinnedRoom() throws -> Int {
        configuration.sizeLimit - (try pinnedTotals().bytes)
    }

    /// Inside a store's transaction, after the old row was deleted: whether the entry is pinned,
    /// throwing `AssetsError.pinnedQuotaExceeded` (which rolls the store back) when it does not fit.
    func admitsPinned(_ size: Int, forKey key: CacheKey) throws -> Bool {
        guard !pins.isEmpty, pins.covers(key) else { return false }
        let pinned = try pinnedTotals().bytes
        guard pinned + size <= configuration.pinnedQuota else {
            throw AssetsError.pinnedQuotaExceeded(
                key: key, bytes: size, pinnedBytes: pinned, quota: configuration.pinnedQuota)
        }
        return true
    }

    /// Records the row `rowID` as pinned (inside a transaction).
    func markPinned(rowID: Int64, size: Int) throws {
        try openPinStatements().insertPinned.withReset { insert in
            try insert.bind(rowID, at: 1)
            try insert.bind(Int64(size), at: 2)
            try insert.run()
        }
        pinnedTotalsCache = nil
    }

    /// Saves `pin` and marks the rows it covers, in one transaction, if they fit the quota.
    func pin(_ pin: Pin) throws {
        let statements = try openStatements()
        let pinStatements = try openPinStatements()
        try recoveringFromFullDisk {
            try transaction(statements) {
                guard !pins.contains(pin) else { return }
                let covered = try coveredRows(pin).filter { row in !(try isPinned(row.rowID)) }
                let added = covered.reduce(0) { $0 + $1.size }
                let pinned = try pinnedTotals().bytes
                guard pinned + added <= configuration.pinnedQuota else {
                    throw AssetsError.pinnedQuotaExceeded(
                        key: pin.key, bytes: added, pinnedBytes: pinned, quota: configuration.pinnedQuota)
                }
                try pinStatements.insertPin.withReset { insert in
                    try bind(pin, to: insert)
                    try insert.run()
                }
                for row in covered { try markPinned(rowID: row.rowID, size: row.size) }
            }
        }
        pins.insert(pin)
    }

    /// Deletes `pin` and unmarks the rows no other pin covers, in one transaction.
    func unpin(_ pin: Pin) throws {
        let statements = try openStatements()
        let pinStatements = try openPinStatements()
        try recoveringFromFullDisk {
            try transaction(statements) {
                guard pins.contains(pin) else { return }
                try pinStatements.deletePin.withReset { delete in
                    try bind(pin, to: delete)
                    try delete.run()
                }
                var remaining = pins
                remaining.remove(pin)
                let released = try pinStatements.pinnedKeys.withReset { query -> [Int64] in
                    var released: [Int64] = []
                    while try query.step() {
                        let key = CacheKey(String(decoding: query.data(at: 1), as: UTF8.self))
                        if !remaining.covers(key) { released.append(query.int64(at: 0)) }
                    }
                    return released
                }
                for rowID in released {
                    try pinStatements.deletePinned.withReset { delete in
                        try delete.bind(rowID, at: 1)
                        try delete.run()
                    }
                }
                pinnedTotalsCache = nil
            }
        }
        pins.remove(pin)
    }

    /// The keys stored, in key order, after `cursor`: one page of `storedKeys(batchSize:)`.
    func keys(after cursor: CacheKey?, limit: Int) throws -> [CacheKey] {
        _ = try openStatements()
        let query = try connection.prepare(
            cursor == nil
                ? "SELECT key FROM entries ORDER BY key LIMIT ?1"
                : "SELECT key FROM entries WHERE key > ?2 ORDER BY key LIMIT ?1",
            operation: "list the stored keys")
        defer { query.finalize() }
        return try query.withReset { query in
            try query.bind(Int64(max(1, limit)), at: 1)
            if let cursor { try query.bindBlob(utf8Of: cursor.rawValue, at: 2) }
            var keys: [CacheKey] = []
            while try query.step() { keys.append(CacheKey(String(decoding: query.data(at: 0), as: UTF8.self))) }
            return keys
        }
    }

    // MARK: Asset selections

    /// The condition selecting an asset's rows through the primary key: the key itself and the two
    /// ranges of keys continuing it with `@` or `#` (`'@' + 1` is `A`, `'#' + 1` is `$`).
    static let assetCondition = "(key = ?1 OR (key >= ?2 AND key < ?3) OR (key >= ?4 AND key < ?5))"

    /// Binds `assetCondition`'s five parameters for `asset`.
    static func bindAsset(_ asset: CacheKey, to statement: SQLiteStatement) throws {
        let key = Array(asset.rawValue.utf8)
        try statement.bindBlob(key, at: 1)
        try statement.bindBlob(key + [UInt8(ascii: "@")], at: 2)
        try statement.bindBlob(key + [UInt8(ascii: "A")], at: 3)
        try statement.bindBlob(key + [UInt8(ascii: "#")], at: 4)
        try statement.bindBlob(key + [UInt8(ascii: "$")], at: 5)
    }

    private func coveredRows(_ pin: Pin) throws -> [Row] {
        let sql: String
        switch pin {
        case .key: sql = "SELECT rowid, size FROM entries WHERE key = ?1"
        case .asset: sql = "SELECT rowid, size FROM entries WHERE " + Self.assetCondition
        }
        let query = try connection.prepare(sql, operation: "find the entries of \(pin)")
        defer { query.finalize() }
        return try query.withReset { query in
            switch pin {
            case .key(let key): try query.bindBlob(utf8Of: key.rawValue, at: 1)
            case .asset(let key): try Self.bindAsset(key, to: query)
            }
            var rows: [Row] = []
            while try query.step() { rows.append((query.int64(at: 0), Int(query.int64(at: 1)))) }
            return rows
        }
    }

    private func isPinned(_ rowID: Int64) throws -> Bool {
        try connection.integers("SELECT COUNT(*) FROM pinned_entries WHERE entry = \(rowID)", operation: "check a pin")
            == [1]
    }

    private func bind(_ pin: Pin, to statement: SQLiteStatement) throws {
        if case .asset = pin { try statement.bind(Int64(1), at: 1) } else { try statement.bind(Int64(0), at: 1) }
        try statement.bindBlob(utf8Of: pin.key.rawValue, at: 2)
    }
}
