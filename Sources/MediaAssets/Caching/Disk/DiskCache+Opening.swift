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

    /// Builds the index from the snapshot a clean close left (see `DiskCache+Snapshot.swift`), or else
    /// rebuilds it from the directory: `fstatat` of each entry file, no reads of their contents.
    ///
    /// Names are parsed straight from the directory stream into 16-byte `EntryName`s (no string per
    /// file) and each file is `stat`ed relative to the open directory (no path per file). Temporary
    /// files left by a crash are removed; unknown files are ignored. If the files exceed the size
    /// limit (it was lowered), least recently used ones are evicted.
    func loadIndex() {
        let lock = lockDescriptor.withLock { $0 }
        if let records = readSnapshot(lock: lock) {
            adopt(records)
            return
        }
        guard let stream = opendir(path) else { return }
        defer { closedir(stream) }
        let directory = dirfd(stream)
        var found: [ScannedFile] = []
        while let item = readdir(stream) {
            POSIX.withName(of: item) { cName, bytes in
                guard let name = EntryName(fileName: bytes) else {
                    if bytes.count > 4, bytes.suffix(4).elementsEqual(Self.temporarySuffix.utf8) {
                        unlinkat(directory, cName, 0)
                    }
                    return
                }
                var info = stat()
                guard fstatat(directory, cName, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFREG
                else { return }
                let lastAccess = POSIX.modificationDate(info).timeIntervalSinceReferenceDate
                found.append(
                    ScannedFile(name: name, size: Int(info.st_size), lastAccess: lastAccess, inode: info.st_ino))
            }
        }
        found.sort { $0.lastAccess < $1.lastAccess }
        let lowWater = lowWaterMark
        let evicted = state.withLock { index -> [DiskIndex.Evicted] in
            index.records.reserveCapacity(found.count)
            for file in found {
                index._insert(
                    file.name, size: file.size, lastAccess: Date(timeIntervalSinceReferenceDate: file.lastAccess),
                    expiry: .unknown, identity: nil, inode: UInt64(file.inode)
                )
            }
            guard index.totalBytes > configuration.sizeLimit else { return [] }
            return index._evict(downTo: lowWater)
        }
        deleteEvictedFiles(evicted)
    }

    /// Takes the records a snapshot held, evicting down to the low-water mark if over the limit.
    private func adopt(_ records: DiskRecords) {
        let lowWater = lowWaterMark
        let evicted = state.withLock { index -> [DiskIndex.Evicted] in
            index.records = records
            index.isFromSnapshot = true
            guard index.totalBytes > configuration.sizeLimit else { return [] }
            return index._evict(downTo: lowWater)
        }
        deleteEvictedFiles(evicted)
    }

    private struct ScannedFile {
        var name: EntryName
        var size: Int
        var lastAccess: Double
        var inode: UInt
    }

    var lowWaterMark: Int {
        // Computed in Double, clamped before converting back: a limit near Int.max must not trap.
        let mark = Double(configuration.sizeLimit) * configuration.lowWaterFraction
        return mark >= Double(Int.max) ? Int.max : Int(mark)
    }

    static let temporarySuffix = ".tmp"
}
