import Foundation
import MediaAssets

extension SQLiteStore {
    /// Deletes the rows `selection` takes in one statement (so one transaction), found through an
    /// index: a key prefix is a range of the primary key, an asset its key and two ranges, a
    /// partition the partition index. Pinned rows go too (their pins stay).
    func removeEntries(_ selection: EntrySelection) throws {
        _ = try openStatements()
        let sql: String
        let bind: (SQLiteStatement) throws -> Void
        switch selection {
        case .keyPrefix(let prefix):
            let lowerBound = Array(prefix.utf8)
            if let upperBound = Self.smallestBlob(after: lowerBound) {
                sql = "DELETE FROM entries WHERE key >= ?1 AND key < ?2 RETURNING rowid, size"
                bind = {
                    try $0.bindBlob(lowerBound, at: 1); try $0.bindBlob(upperBound, at: 2)
                }
            } else {
                sql = "DELETE FROM entries WHERE key >= ?1 RETURNING rowid, size"
                bind = { try $0.bindBlob(lowerBound, at: 1) }
            }
        case .partition(let partition):
            sql = "DELETE FROM entries WHERE partition_name = ?1 RETURNING rowid, size"
            bind = { try $0.bind(partition.rawValue, at: 1) }
        case .asset(let asset):
            sql = "DELETE FROM entries WHERE \(Self.assetCondition) RETURNING rowid, size"
            bind = { try Self.bindAsset(asset, to: $0) }
        }
        // Prepared per call: batch removals are rare, and each shape has its own plan.
        let delete = try connection.prepare(sql, operation: "remove the entries of \(selection)")
        defer { delete.finalize() }
        let removed = try recoveringFromFullDisk {
            try delete.withReset { delete -> [Row] in
                try bind(delete)
                var rows: [Row] = []
                while try delete.step() { rows.append((delete.int64(at: 0), Int(delete.int64(at: 1)))) }
                return rows
            }
        }
        for row in removed { forget(row) }
        checkpointIfWALOverBudget()
    }

    /// The smallest byte string greater than every string that starts with `prefix` (keys compare
    /// as blobs, byte by byte), or nil when there is none (the prefix is all 0xFF bytes).
    static func smallestBlob(after prefix: [UInt8]) -> [UInt8]? {
        var bound = prefix
        while let last = bound.last {
            if last < 0xFF {
                bound[bound.count - 1] = last + 1
                return bound
            }
            bound.removeLast()
        }
        return nil
    }
}
