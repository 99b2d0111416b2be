import Foundation

/// What the disk cache knows of its files without reading them: sizes, last access, expiry.
///
/// Built at open, in the background, from the snapshot a clean close left and `stat` of each file
/// (size and modification time, which records the last access); an entry's expiry is learnt when it
/// is written or read. Until that pass ends (`isComplete`), the records may lack files that exist and
/// hold files that do not: reads check the files themselves, and the names live operations decide
/// meanwhile are kept in `decided`, which the pass leaves as they are. Guarded by the cache's lock.
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
    /// Whether the pass at open has reconciled the records with the directory.
    var isComplete = false
    /// Names that stores, removals, evictions, metadata updates and reads of unindexed files decided
    /// while the pass runs: their records (or their absence) are right, whatever the pass saw.
    var decided: Set<EntryName> = []

    /// Notes that a live operation decided `name` (only while the pass runs).
    private mutating func decide(_ name: EntryName) {
        if !isComplete { decided.insert(name) }
    }

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
        decide(name)
    }

    /// Records a verified read of `name` (the file with `inode` and `size`) that found no record: while
    /// the pass runs, unless a live operation decided the name meanwhile. Returns true if a batch of
    /// access times is now due to be saved.
    mutating func _adoptRead(
        _ name: EntryName, size: Int, at date: Date, expiry: Expiry, identity: Identity, inode: UInt64
    ) -> Bool {
        guard !isComplete, records.record(for: name) == nil, !decided.contains(name) else { return false }
        let record = Record(size: size, lastAccess: date, expiry: expiry, inode: inode, isVerified: true)
        records.set(record, for: name)
        identities[name] = identity
        decide(name)
        return unsavedAccess.record(name, at: date)
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
    /// While the pass runs, a file without a record gets one of `size`.
    mutating func _refresh(
        _ name: EntryName, size: Int, at date: Date, expiry: Expiry, identity: Identity, inode: UInt64
    ) {
        var record: Record
        if let known = records.record(for: name) {
            guard known.inode == inode else { return }
            record = known
        } else {
            guard !isComplete, !decided.contains(name) else { return }
            record = Record(size: size, lastAccess: date, expiry: expiry, inode: inode, isVerified: false)
        }
        record.lastAccess = date
        record.expiry = expiry
        records.set(record, for: name)
        identities[name] = identity
        unsavedAccess.forget(name)
        decide(name)
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
        decide(name)
        return records.remove(name)
    }

    // MARK: The pass at open

    /// What the pass at open found of one entry file: `stat` without reading it.
    struct ScannedFile {
        var name: EntryName
        var size: Int
        /// The modification time (the last access), in seconds since the reference date.
        var lastAccess: Double
        /// The status change time, in seconds since the reference date: no tool can set it back.
        var changed: Double
        var inode: UInt64
    }

    /// Takes the records of the snapshot a clean close left, keeping what live operations decided since
    /// open (their records stay the most recent).
    mutating func _adopt(snapshot: DiskRecords) {
        let live = records
        records = snapshot
        isFromSnapshot = true
        for name in decided { _ = records.remove(name) }
        live.forEachOldestFirst { name, record in records.set(record, for: name) }
    }

    /// Reconciles the records with files the pass found: keeps a snapshot's record whose file has not
    /// changed since the snapshot was written (same inode and size, status changed before
    /// `snapshotTime`), replaces the others with what `stat` said, collects files without a record in
    /// `unknown` (see `_insertFound(_:)`), and leaves the names live operations decided.
    mutating func _reconcile(
        _ files: [ScannedFile], snapshotTime: Double?, unknown: inout [ScannedFile]
    ) {
        for file in files where !decided.contains(file.name) {
            guard let record = records.record(for: file.name) else {
                unknown.append(file)
                continue
            }
            let unchanged =
                record.inode == file.inode && record.size == file.size
                && snapshotTime.map { file.changed < $0 } == true
            records.markListed(file.name, replacingWith: unchanged ? nil : Self.record(of: file))
            if !unchanged {
                identities[file.name] = nil
                unsavedAccess.forget(file.name)
            }
        }
    }

    /// Adds files the pass found without a record (`files` newest first) as the least recently used,
    /// unless a live operation decided their names meanwhile.
    mutating func _insertFound(_ files: ArraySlice<ScannedFile>) {
        for file in files where !decided.contains(file.name) && records.record(for: file.name) == nil {
            records.insertLeastRecent(Self.record(of: file), for: file.name)
        }
    }

    private static func record(of file: ScannedFile) -> Record {
        Record(
            size: file.size, lastAccess: Date(timeIntervalSinceReferenceDate: file.lastAccess), expiry: .unknown,
            inode: file.inode, isVerified: false)
    }

    /// Ends the pass: with `droppingUnlisted` (the directory was listed), drops the records whose files
    /// it did not find, unless live operations decided them; from now on the records describe the
    /// directory. Returns how many were dropped.
    mutating func _completePass(droppingUnlisted: Bool) -> Int {
        let decided = self.decided
        let dropped = droppingUnlisted ? records.removeUnlisted(keeping: { decided.contains($0) }) : []
        for name in dropped {
            identities[name] = nil
            unsavedAccess.forget(name)
        }
        isComplete = true
        self.decided = []
        return dropped.count
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
            decide(oldest.name)
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
