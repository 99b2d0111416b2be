import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension DiskCache {
    /// Reads, checks and returns the entry for `key`; runs on the read queue.
    func readEntry(forKey key: CacheKey) throws -> CacheEntry? {
        let name = EntryName(key: key)
        guard let record = state.withLock({ $0.records.record(for: name) }) else {
            return miss()
        }
        // Without an access-time update: the cache keeps its own (the modification time, in batches);
        // the kernel's would dirty the file's inode on every read after each batch. EPERM: not our file.
        var descriptor = withFilePath(name) { open($0, O_RDONLY | O_CLOEXEC | Self.noAccessTime) }
        if descriptor < 0, errno == EPERM { descriptor = withFilePath(name) { open($0, O_RDONLY | O_CLOEXEC) } }
        guard descriptor >= 0 else {
            if errno == ENOENT {
                forgetMissingFile(name, inode: record.inode)
                return miss()
            }
            throw AssetsError.readFailed(key: key, path: filePath(name), reason: errnoDescription())
        }
        defer { POSIX.closeDescriptor(descriptor) }
        let info: stat
        let fileSize: Int
        do {
            info = try POSIX.status(descriptor)
            fileSize = Int(info.st_size)
        } catch {
            throw AssetsError.readFailed(key: key, path: filePath(name), reason: error.description)
        }
        let largestFile = max(configuration.sizeLimit, EntryFile.smallestFixedHeaderLength)
        guard fileSize >= EntryFile.smallestFixedHeaderLength, fileSize <= largestFile else {
            removeIfUnchanged(name, descriptor)
            return miss()
        }

        // One allocation and one read for the whole file; the entry's Data adopts the buffer
        // past the header, so the body is never copied.
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: fileSize, alignment: 16)
        var adopted = false
        defer { if !adopted { buffer.deallocate() } }
        let readCount: Int
        do {
            readCount = try POSIX.read(descriptor, into: buffer, count: fileSize, offset: 0)
        } catch {
            throw AssetsError.readFailed(key: key, path: filePath(name), reason: error.description)
        }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: readCount)
        let header: EntryFile.Header
        do {
            guard readCount == fileSize else { throw EntryFile.Corruption.tooShort }
            header = try EntryFile.decodeHeader(bytes, fileSize: fileSize, expectedKey: key.rawValue)
            // The whole-body checksum is checked once per file (see DiskIndex.Record.isVerified).
            if !(record.isVerified && record.inode == UInt64(info.st_ino)) {
                try EntryFile.verify(
                    header: header, headerBytes: bytes,
                    body: UnsafeRawBufferPointer(rebasing: bytes[header.headerLength...])
                )
            }
        } catch {
            removeIfUnchanged(name, descriptor)
            return miss()
        }

        let now = configuration.now()
        var metadata = header.metadata
        if let expires = metadata.expires, expires <= now {
            removeIfUnchanged(name, descriptor)
            return miss()
        }
        metadata.lastAccess = now
        let data: Data
        if header.bodyLength == 0 {
            data = Data()
        } else {
            data = Data(
                bytesNoCopy: buffer + header.headerLength, count: header.bodyLength,
                deallocator: .custom { _, _ in buffer.deallocate() }
            )
            adopted = true
        }
        let expiry = DiskIndex.Expiry(metadata.expires)
        recordHit(name, at: now, expiry: expiry, key: key, partition: metadata.partition, inode: UInt64(info.st_ino))
        return CacheEntry(data: data, metadata: metadata)
    }

    /// `O_NOATIME` (Linux), which Swift does not import.
    #if os(Linux)
    static let noAccessTime: Int32 = 0o1_000_000
    #else
    static let noAccessTime: Int32 = 0
    #endif

    private func miss() -> CacheEntry? {
        state.withLock { $0.statistics.misses += 1 }
        return nil
    }

    private func recordHit(
        _ name: EntryName, at date: Date, expiry: DiskIndex.Expiry, key: CacheKey, partition: LRUCacheType?,
        inode: UInt64
    ) {
        let shouldSave = state.withLock { index -> Bool in
            index.statistics.hits += 1
            return index._touch(
                name, at: date, expiry: expiry, identity: DiskIndex.Identity(key: key, partition: partition),
                inode: inode
            )
        }
        if shouldSave {
            writeQueue.async { [self] in
                if !isClosed { saveAccessTimes() }
            }
        }
    }

    /// Drops the record of a file that is gone (deleted by hand, or by a closed instance's late work),
    /// unless a write has put a new file there since; runs on the write queue, like every removal.
    private func forgetMissingFile(_ name: EntryName, inode: UInt64) {
        writeQueue.async { [self] in
            guard !isClosed, POSIX.status(path: filePath(name)) == nil else { return }
            state.withLock { index in
                if index.records.record(for: name)?.inode == inode { _ = index._remove(name) }
            }
        }
    }

    /// Removes a bad or expired file, unless a write has replaced it since it was opened.
    ///
    /// A duplicate of the open descriptor pins the file until the write queue decides, so its inode
    /// number cannot be reused by a newer file in between: equal inodes mean the same file.
    private func removeIfUnchanged(_ name: EntryName, _ descriptor: Int32) {
        let pinned = dup(descriptor)
        guard pinned >= 0 else { return }
        writeQueue.async { [self] in
            defer { POSIX.closeDescriptor(pinned) }
            guard !isClosed, let opened = try? POSIX.status(pinned), let current = POSIX.status(path: filePath(name)),
                current.st_ino == opened.st_ino, current.st_dev == opened.st_dev
            else { return }
            try? removeFile(named: name)
        }
    }
}
