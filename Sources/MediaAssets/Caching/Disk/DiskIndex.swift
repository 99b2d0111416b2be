import Foundation

/// What the disk cache knows of its files without reading them: sizes, last access, expiry.
///
/// Rebuilt at open from `stat` of each file (size and modification time, which records the last
/// access); an entry's expiry is learnt when it is written or read. Guarded by the cache's lock.
struct DiskIndex {
    /// What the index knows of an entry's hard expiry.
    enum Expiry: Equatable {
        case unknown
        case never
        case at(Date)

        init(_ date: Date?) { self = date.map { .at($0) } ?? .never }
    }

    /// An entry's key and partition, learnt from its header when it is written or read, or when a
    /// selection needs it (nil until then: opening reads no file).
    struct Identity: Equatable {
        var key: CacheKey
        var partition: LRUCacheType?
    }

    struct Record {
        var size: Int
        var lastAccess: Date
        var expiry: Expiry
        var identity: Identity?
        /// The inode of the file the record describes; a reader that opened an older file (replaced
        /// since) must not write its findings onto this record.
        var inode: UInt64
        /// Whether a read verified this file's whole-body checksum. Files are only ever replaced
        /// (a new inode and record), never changed in place, so later reads of the same file check
        /// the header and key but not the whole body.
        var isVerified: Bool
    }

    /// File names (hashes of keys) by recency; each record's cost is its file size.
    var records = LRUList<String, Record>()
    /// Last-access times not yet written to the files' modification times.
    var unsavedAccess: AccessTimeBatch<String>
    var statistics = CacheStatistics()

    init(accessTimeBatchSize: Int) {
        unsavedAccess = AccessTimeBatch(threshold: accessTimeBatchSize)
    }

    var totalBytes: Int { records.totalCost }

    mutating func _insert(
        _ name: String, size: Int, lastAccess: Date, expiry: Expiry, identity: Identity?, inode: UInt64
    ) {
        let record = Record(
            size: size, lastAccess: lastAccess, expiry: expiry, identity: identity, inode: inode, isVerified: false
        )
        records.setValue(record, forKey: name, cost: size)
        unsavedAccess.forget(name)
    }

    /// Marks `name` used at `date` after a verified read of the file with `inode`; returns true if
    /// a batch of access times is now due to be saved (false too if the index no longer describes
    /// that file).
    mutating func _touch(_ name: String, at date: Date, expiry: Expiry, identity: Identity, inode: UInt64) -> Bool {
        guard var record = records.value(forKey: name), record.inode == inode else { return false }
        record.lastAccess = date
        record.expiry = expiry
        record.identity = identity
        record.isVerified = true
        records.setValue(record, forKey: name, cost: record.size)
        return unsavedAccess.record(name, at: date)
    }

    /// Records what a header read taught about `name`, if the index still describes that file.
    mutating func _learn(_ name: String, expiry: Expiry, identity: Identity?, inode: UInt64) {
        guard var record = records.peekValue(forKey: name), record.inode == inode else { return }
        record.expiry = expiry
        record.identity = identity
        // In place: learning about a file is not a use of it.
        records.replaceValueInPlace(record, forKey: name)
    }

    mutating func _remove(_ name: String) -> Record? {
        unsavedAccess.forget(name)
        return records.removeValue(forKey: name)?.value
    }

    /// A record the index evicted, kept until its file is deleted.
    struct Evicted {
        var name: String
        var record: Record
    }

    /// Removes least recently used records until the total is at most `bytes`; returns them.
    mutating func _evict(downTo bytes: Int) -> [Evicted] {
        var evicted: [Evicted] = []
        while records.totalCost > bytes, let oldest = records.removeLeastRecent() {
            unsavedAccess.forget(oldest.key)
            statistics.evictions += 1
            evicted.append(Evicted(name: oldest.key, record: oldest.value))
        }
        return evicted
    }

    /// Puts back a record whose file could not be deleted, uncounted as an eviction. It goes in as
    /// the most recent, so the next sweep tries other files before this one again.
    mutating func _restore(_ file: Evicted) {
        records.setValue(file.record, forKey: file.name, cost: file.record.size)
        statistics.evictions -= 1
    }
}
