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

    /// Rebuilds the index from the directory: `stat` of each entry file, no reads of their contents.
    ///
    /// Temporary files left by a crash are removed; unknown files are ignored. If the files exceed
    /// the size limit (it was lowered), least recently used ones are evicted.
    func loadIndex() {
        guard let names = try? POSIX.directoryNames(path) else { return }
        var found: [(name: String, size: Int, lastAccess: Date, inode: UInt64)] = []
        found.reserveCapacity(names.count)
        for name in names {
            if name.hasSuffix(Self.temporarySuffix) {
                unlink(filePath(name))
                continue
            }
            guard Self.isEntryFileName(name), let info = POSIX.status(path: filePath(name)),
                (info.st_mode & S_IFMT) == S_IFREG
            else { continue }
            found.append((name, Int(info.st_size), POSIX.modificationDate(info), UInt64(info.st_ino)))
        }
        found.sort { $0.lastAccess < $1.lastAccess }
        let lowWater = lowWaterMark
        let evicted = state.withLock { index -> [DiskIndex.Evicted] in
            for file in found {
                index._insert(
                    file.name, size: file.size, lastAccess: file.lastAccess, expiry: .unknown, identity: nil,
                    inode: file.inode
                )
            }
            guard index.totalBytes > configuration.sizeLimit else { return [] }
            return index._evict(downTo: lowWater)
        }
        deleteEvictedFiles(evicted)
    }

    var lowWaterMark: Int {
        // Computed in Double, clamped before converting back: a limit near Int.max must not trap.
        let mark = Double(configuration.sizeLimit) * configuration.lowWaterFraction
        return mark >= Double(Int.max) ? Int.max : Int(mark)
    }

    static let temporarySuffix = ".tmp"
}
