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

        /// An expiry from its stored form: seconds since the reference date, NaN when unknown,
        /// +infinity when never.
        init(storedSeconds seconds: Double) {
            self =
                seconds.isNaN
                ? .unknown : seconds == .infinity ? .never : .at(Date(timeIntervalSinceReferenceDate: seconds))
        }

        /// The stored form (see `init(storedSeconds:)`).
        var storedSeconds: Double {
            switch self {
            case .unknown: return .nan
            case .never: return .infinity
            case .at(let date): return date.timeIntervalSinceReferenceDate
            }
        }
    }

    /// An entry's key and partition, learnt from its header when it is written or read, or when a
    /// selection needs it (nil until then: opening reads no file).
    struct Identity: Equatable {
        var key: CacheKey
        var partition: LRUCacheType?
    }

    typealias Record = DiskRecords.Record

    /// File names (hashes of keys) by recency, with what is known of each file.
    var records = DiskRecords()
    /// The key and partition of the files whose header was written or read since open. Kept apart
    /// from the records: after a restart no file's identity is known, and the records stay small.
    var identities: [EntryName: Identity] = [:]
    /// Last-access times not yet written to the files' modification times.
    var unsavedAccess: AccessTimeBatch<EntryName>
    var statistics = CacheStatistics()
    /// Whether open read the records from the snapshot a clean close left (else it scanned).
    var isFromSnapshot = false
    /// The pin rules, as saved in `.pins`.
    var pins = PinSet()
    /// The files the pins cover (some may be gone: a name stays listed until it is unpinned).
    var pinnedNames: Set<EntryName> = []

    /// The pinned files present now, and their total size.
    var pinned: (count: Int, bytes: Int) {
        var total = (count: 0, bytes: 0)
        for name in pinnedNames {
            guard let record = records.record(for: name) else { continue }
            total.count += 1
            total.bytes += record.size
        }
        return total
    }

    init(accessTimeBatchSize: Int) {
        unsavedAccess = AccessTimeBatch(threshold: accessTimeBatchSize)
    }

    var totalBytes: Int { records.totalSize }

    mutating func _insert(
        _ name: EntryName, size: Int, lastAccess: Date, expiry: Expiry, identity: Identity?, inode: UInt64
    ) {
        let record = Record(size: size, lastAccess: lastAccess, expiry: expiry, inode: inode, isVerified: false)
        records.set(record, for: name)
        identities[name] = identity
        unsavedAccess.forget(name)
    }

    /// Marks `name` used at `date` after a verified read of the file with `inode`; returns true if
    /// a batch of access times is now due to be saved (false too if the index no longer describes
    /// that file).
    mutating func _touch(
        _ name: EntryName, at date: Date, expiry: Expiry, identity: @autoclosure () -> Identity, inode: UInt64
    ) -> Bool {
        guard var record = records.record(for: name), record.inode == inode else { return false }
        record.lastAccess = date
        record.expiry = expiry
        record.isVerified = true
        records.set(record, for: name)
        // The same file (inode) has the same key and partition: learnt once.
        if identities[name] == nil { identities[name] = identity() }
        return unsavedAccess.record(name, at: date)
    }

    /// Records a metadata update of `name` (the file with `inode`) at `date`: its expiry and identity,
    /// and a use whose time the file's modification time already holds. Nothing if the index no longer
    /// describes that file.
    mutating func _refresh(_ name: EntryName, at date: Date, expiry: Expiry, identity: Identity, inode: UInt64) {
        guard var record = records.record(for: name), record.inode == inode else { return }
        record.lastAccess = date
        record.expiry = expiry
        records.set(record, for: name)
        identities[name] = identity
        unsavedAccess.forget(name)
    }

    /// Records what a header read taught about `name`, if the index still describes that file.
    mutating func _learn(_ name: EntryName, expiry: Expiry, identity: Identity?, inode: UInt64) {
        guard var record = records.record(for: name), record.inode == inode else { return }
        record.expiry = expiry
        identities[name] = identity
        // In place: learning about a file is not a use of it.
        records.replaceInPlace(record, for: name)
    }

    mutating func _remove(_ name: EntryName) -> Record? {
        unsavedAccess.forget(name)
        identities[name] = nil
        return records.remove(name)
    }

    /// A record the index evicted, kept until its file is deleted.
    struct Evicted {
        var name: EntryName
        var record: Record
        var identity: Identity?
    }

    /// Removes least recently used records that are not pinned until the total is at most `bytes`
    /// (or only pinned ones are left); returns them.
    mutating func _evict(downTo bytes: Int) -> [Evicted] {
        var evicted: [Evicted] = []
        var skipped: [(name: EntryName, record: Record)] = []
        var skippedBytes = 0
        while records.totalSize + skippedBytes > bytes, let oldest = records.removeLeastRecent() {
            if !pinnedNames.isEmpty, pinnedNames.contains(oldest.name) {
                skipped.append(oldest)
                skippedBytes += oldest.record.size
                continue
            }
            unsavedAccess.forget(oldest.name)
            statistics.evictions += 1
            let identity = identities.removeValue(forKey: oldest.name)
            evicted.append(Evicted(name: oldest.name, record: oldest.record, identity: identity))
        }
        // Pinned records go back, oldest first, so they keep their order among themselves.
        for file in skipped { records.set(file.record, for: file.name) }
        return evicted
    }

    /// Puts back a record whose file could not be deleted, uncounted as an eviction. It goes in as
    /// the most recent, so the next sweep tries other files before this one again.
    mutating func _restore(_ file: Evicted) {
        records.set(file.record, for: file.name)
        identities[file.name] = file.identity
        statistics.evictions -= 1
    }
}
