import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension DiskCache {
    /// Writes `entry` to a temporary file and renames it into place; runs on the write queue.
    func writeEntry(_ entry: CacheEntry, forKey key: CacheKey) throws {
        let name = EntryName(key: key)
        let header = EntryFile.encodeHeader(key: key, entry: entry)
        let fileSize = header.count + entry.data.count
        let (isPinned, pinnedBytes) = try admitPinned(key, name: name, fileSize: fileSize)
        // What pinned files leave of the limit is all an unpinned entry may have.
        guard fileSize <= configuration.sizeLimit - (isPinned ? 0 : pinnedBytes) else {
            // Too large to keep: drop the older entry too, so a read never returns stale bytes.
            state.withLock { $0.statistics.rejectedTooLarge += 1 }
            try removeFile(named: name)
            return
        }

        let finalPath = filePath(name)
        let temporaryPath = finalPath + Self.temporarySuffix
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw AssetsError.writeFailed(key: key, path: temporaryPath, reason: errnoDescription())
        }
        do {
            try header.withUnsafeBytes { headerBytes in
                try entry.data.withUnsafeBytes { body in try POSIX.write(descriptor, headerBytes, body) }
            }
        } catch {
            POSIX.closeDescriptor(descriptor)
            unlink(temporaryPath)
            throw AssetsError.writeFailed(key: key, path: temporaryPath, reason: "\(error)")
        }
        // The modification time records the last access; start it at the cache's clock.
        let now = configuration.now()
        POSIX.setModificationTime(descriptor, now)
        let inode = (try? POSIX.status(descriptor)).map { UInt64($0.st_ino) } ?? 0
        guard POSIX.closeDescriptor(descriptor) == 0, rename(temporaryPath, finalPath) == 0 else {
            let reason = errnoDescription()
            unlink(temporaryPath)
            throw AssetsError.writeFailed(key: key, path: finalPath, reason: reason)
        }

        let lowWater = lowWaterMark
        let evicted = state.withLock { index -> [DiskIndex.Evicted] in
            index.statistics.writes += 1
            let expiry = DiskIndex.Expiry(entry.metadata.expires)
            let identity = DiskIndex.Identity(key: key, partition: entry.metadata.partition)
            index._insert(name, size: fileSize, lastAccess: now, expiry: expiry, identity: identity, inode: inode)
            guard index.totalBytes > configuration.sizeLimit else { return [] }
            // Sweep to the low-water mark, but never evict the entry just written.
            var evicted = index._evict(downTo: lowWater)
            if let position = evicted.firstIndex(where: { $0.name == name }) {
                evicted.remove(at: position)
                index.statistics.evictions -= 1
                index._insert(name, size: fileSize, lastAccess: now, expiry: expiry, identity: identity, inode: inode)
            }
            return evicted
        }
        deleteEvictedFiles(evicted)
    }

    /// Removes the file `name`, then its record; a missing file is not an error. A file that cannot
    /// be removed keeps its record, so the index still agrees with the disk.
    func removeFile(named name: EntryName) throws {
        if unlink(filePath(name)) != 0, errno != ENOENT {
            throw AssetsError.removeFailed(path: filePath(name), reason: errnoDescription())
        }
        _ = state.withLock { $0._remove(name) }
    }

    /// Deletes the files of records the index evicted; a file that cannot be deleted gets its record
    /// back (at the least recent end), so the index keeps describing the disk.
    func deleteEvictedFiles(_ evicted: [DiskIndex.Evicted]) {
        let kept = evicted.filter { unlink(filePath($0.name)) != 0 && errno != ENOENT }
        guard !kept.isEmpty else { return }
        state.withLock { index in
            for file in kept { index._restore(file) }
        }
    }

    /// Removes every entry file in the directory; a file that cannot be removed stays indexed.
    func removeAllFiles() throws {
        let names: [String]
        do {
            names = try POSIX.directoryNames(path)
        } catch {
            throw AssetsError.removeFailed(path: path, reason: error.description)
        }
        var failures: [String] = []
        for fileName in names {
            let name = EntryName(fileName: fileName)
            guard name != nil || fileName.hasSuffix(Self.temporarySuffix) else { continue }
            if unlink(path + "/" + fileName) == 0 || errno == ENOENT {
                if let name { _ = state.withLock { $0._remove(name) } }
            } else {
                failures.append(fileName)
            }
        }
        guard let first = failures.first else { return }
        throw AssetsError.removeFailed(
            path: path + "/" + first, reason: "\(failures.count) file(s) could not be removed: \(errnoDescription())"
        )
    }

    /// Removes expired entry files, deciding from each candidate's header: the index's expiry only
    /// says which files may have expired (a read racing a metadata update can leave an older one there).
    func removeExpiredFiles() throws {
        let now = configuration.now()
        let candidates = state.withLock { index in
            index.records.namesByRecency.filter { name in
                switch index.records.record(for: name)?.expiry {
                case .unknown?: return true
                case .at(let date)?: return date <= now
                case .never?, nil: return false
                }
            }
        }
        for name in candidates {
            if case .at(let date)? = learnHeader(name)?.expiry, date <= now {
                try removeFile(named: name)
            }
        }
    }

    /// Writes unsaved last-access times to the files' modification times.
    func saveAccessTimes() {
        let pending = state.withLock { $0.unsavedAccess.take() }
        for (name, date) in pending { POSIX.setModificationTime(path: filePath(name), date) }
    }
}
