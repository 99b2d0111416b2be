import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension DiskCache {
    /// Creates the directory (mode 0700) and takes its lock file; returns the lock's descriptor.
    static func openAndLock(directory path: String) throws -> Int32 {
        try PrivateDirectory.create(path)
        let lockPath = path + "/.lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = "cannot create \(lockPath): \(errnoDescription())"
            throw AssetsError.directoryUnavailable(path: path, reason: reason)
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            POSIX.closeDescriptor(descriptor)
            if code == EWOULDBLOCK { throw AssetsError.directoryLocked(path: path) }
            let reason = "cannot lock \(lockPath): \(errnoDescription(code))"
            throw AssetsError.directoryUnavailable(path: path, reason: reason)
        }
        return descriptor
    }

    /// Starts the pass that builds the index in the background, on a thread of its own; the cache
    /// serves meanwhile (see `DiskIndex`).
    ///
    /// The pass takes the snapshot `mark` vouches for (a clean close of a large cache), then lists the
    /// directory and `stat`s each entry file relative to it (no read of a file's contents, no path
    /// string per file: names are parsed straight from the directory stream into `EntryName`s),
    /// reconciling each batch of files with the records under the lock; files without a record are added
    /// last, least recently used first by modification time. At its end, on the write queue, temporary
    /// files a crash left are removed, records of files it did not find are dropped, and if the files
    /// exceed the size limit (it was lowered, or stores went on meanwhile) least recently used ones are
    /// evicted. It holds the cache only weakly, and stops when the cache is closed.
    func startIndexing(mark: CleanMark?) {
        let reference = WeakReference(self)
        let path = self.path
        DispatchQueue(label: "MediaAssets.DiskCache.index", qos: .utility).async {
            Self.runIndexPass(reference, mark: mark, path: path)
        }
    }

    /// Holds a cache without keeping it alive: a cache dropped while its pass runs still releases its
    /// directory at once.
    final class WeakReference: Sendable {
        weak let cache: DiskCache?
        init(_ cache: DiskCache) { self.cache = cache }

        /// The cache, unless it is gone or closed.
        var open: DiskCache? {
            guard let cache, !cache.isClosed else { return nil }
            return cache
        }
    }

    /// Files `stat`ed between two turns of the lock.
    private static let batchSize = 4_096

    private static func runIndexPass(_ reference: WeakReference, mark: CleanMark?, path: String) {
        var snapshotTime: Double?
        if let mark, let cache = reference.open, let (records, writtenAt) = cache.readSnapshot(mark) {
            cache.state.withLock { $0._adopt(snapshot: records) }
            snapshotTime = writtenAt
        }
        // Files the index had no record for, added at the end, newest first, behind every record there.
        var unknown: [DiskIndex.ScannedFile] = []
        var isFirstBatch = true
        let temporary = scan(path) { batch in
            guard let cache = reference.open else { return false }
            if isFirstBatch {
                cache.configuration.indexPassWillReconcile?()
                isFirstBatch = false
            }
            cache.state.withLock { $0._reconcile(batch, snapshotTime: snapshotTime, unknown: &unknown) }
            return true
        }
        guard let temporary else {
            // The directory cannot be listed (or the cache closed): what the index holds is all it knows.
            reference.open?.finishIndexing(dropUnlisted: false, temporary: [])
            return
        }
        unknown.sort { $0.lastAccess > $1.lastAccess }
        for start in stride(from: 0, to: unknown.count, by: batchSize) {
            guard let cache = reference.open else { return }
            let batch = unknown[start..<min(start + batchSize, unknown.count)]
            cache.state.withLock { $0._insertFound(batch) }
        }
        reference.open?.finishIndexing(dropUnlisted: true, temporary: temporary)
    }

    /// Lists `path`, `stat`ing each entry file relative to it, and hands the files to `reconcile` in
    /// batches; returns the names of temporary files, or nil if the directory cannot be listed or
    /// `reconcile` returns false.
    private static func scan(
        _ path: String, reconcile: ([DiskIndex.ScannedFile]) -> Bool
    ) -> [String]? {
        guard let stream = opendir(path) else { return nil }
        defer { closedir(stream) }
        let directory = dirfd(stream)
        var batch: [DiskIndex.ScannedFile] = []
        batch.reserveCapacity(batchSize)
        var temporary: [String] = []
        while let item = readdir(stream) {
            POSIX.withName(of: item) { cName, bytes in
                guard let name = EntryName(fileName: bytes) else {
                    if bytes.count > 4, bytes.suffix(4).elementsEqual(Self.temporarySuffix.utf8) {
                        temporary.append(String(cString: cName))
                    }
                    return
                }
                var info = stat()
                guard fstatat(directory, cName, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFREG
                else { return }
                batch.append(
                    DiskIndex.ScannedFile(
                        name: name, size: Int(info.st_size),
                        lastAccess: POSIX.modificationDate(info).timeIntervalSinceReferenceDate,
                        changed: POSIX.statusChangeDate(info).timeIntervalSinceReferenceDate,
                        inode: UInt64(info.st_ino)))
            }
            if batch.count == batchSize {
                guard reconcile(batch) else { return nil }
                batch.removeAll(keepingCapacity: true)
            }
        }
        guard reconcile(batch) else { return nil }
        return temporary
    }

    /// Ends the pass on the write queue (after any store under way): removes the temporary files a crash
    /// left, drops records of files the pass did not find, sweeps to the low-water mark if over the
    /// limit, and lets the whole-cache operations waiting for the index go on.
    private func finishIndexing(dropUnlisted: Bool, temporary: [String]) {
        writeQueue.async { [self] in
            guard !isClosed else { return }
            // No write is under way here (they run on this queue): every temporary file is a crash's.
            for name in temporary { unlink(path + "/" + name) }
            let lowWater = lowWaterMark
            let evicted = state.withLock { index -> [DiskIndex.Evicted] in
                _ = index._completePass(droppingUnlisted: dropUnlisted)
                guard index.totalBytes > configuration.sizeLimit else { return [] }
                return index._evict(downTo: lowWater)
            }
            deleteEvictedFiles(evicted)
            indexed.open()
        }
    }

    var lowWaterMark: Int {
        // Computed in Double, clamped before converting back: a limit near Int.max must not trap.
        let mark = Double(configuration.sizeLimit) * configuration.lowWaterFraction
        return mark >= Double(Int.max) ? Int.max : Int(mark)
    }

    static let temporarySuffix = ".tmp"
}
